// Input rules shared by the account changes: a display name, a new email (as registration checks
// it), and a user id from the gateway.
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';
import { isValidEmail, MAX_EMAIL_LENGTH, normalizeEmail } from './email.ts';
import { MAX_NAME_LENGTH } from './registration-input.ts';
import { isUuid } from '@parley/common/ids.ts';

export const ACCOUNT_NOT_FOUND = 'Account not found';

/** Trimmed; may be empty (the product then says "User"). */
export function parseName(raw: string): string {
  const name = raw.trim();
  if (hasControlCharacters(name)) throw invalid('Name must not contain control characters');
  if (name.length > MAX_NAME_LENGTH) throw invalid(`Name must be at most ${MAX_NAME_LENGTH} characters`);
  return name;
}

/** Normalised like registration's, with its messages. */
export function parseNewEmail(raw: string): string {
  const email = normalizeEmail(raw);
  if (!email) throw invalid('Please enter all required fields');
  if (hasControlCharacters(email)) throw invalid('Email must not contain control characters');
  if (email.length > MAX_EMAIL_LENGTH) throw invalid(`Email must be at most ${MAX_EMAIL_LENGTH} characters`);
  if (!isValidEmail(email)) throw invalid('Please enter a valid email address');
  return email;
}

/** The gateway passes the id of the user it authenticated; anything else cannot be an account. */
export function parseUserId(raw: string): string {
  if (!isUuid(raw)) throw notFound(ACCOUNT_NOT_FOUND);
  return raw.toLowerCase();
}
