// Reset tokens are made and stored like session tokens (core/session-token.ts): 32 random bytes
// in the link, only their SHA-256 in the database, so a leaked row cannot reset anyone's password.
import { hashSessionToken, newSessionToken } from '../core/session-token.ts';

export const newResetToken = newSessionToken;
export const hashResetToken = hashSessionToken;

/** Longer than any token we make (43 characters); anything longer is not looked up. */
export const MAX_RESET_TOKEN_LENGTH = 128;
