// Invitation tokens are made and stored like session tokens (core/session-token.ts): 32 random bytes
// in the link, only their SHA-256 in the database, so a leaked row lets no one join.
import { hashSessionToken, newSessionToken } from '../core/session-token.ts';

export const newInvitationToken = newSessionToken;
export const hashInvitationToken = hashSessionToken;

/** Longer than any token we make (43 characters); anything longer is not looked up. */
export const MAX_INVITATION_TOKEN_LENGTH = 128;

export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;
