// The validated input of Register. Messages are the product's own wording (docs/product.md, Accounts
// and sessions); the same checks run in the browser, but the server never relies on that.
import { invalid } from '@parley/common/rpc-errors.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';
import { isValidEmail, MAX_EMAIL_LENGTH, normalizeEmail } from './email.ts';

export const MIN_PASSWORD_LENGTH = 6;
// Argon2 hashes any length, but an unbounded password is a cheap way to make the server work hard.
export const MAX_PASSWORD_LENGTH = 1024;
export const MAX_NAME_LENGTH = 100;

export interface RegistrationRequest {
  email: string;
  password: string;
  passwordConfirmation: string;
  name: string;
}

export interface RegistrationInput {
  email: string;
  password: string;
  name: string;
}

/** Returns the normalised input, or throws InvalidArgument with the message to show. */
export function parseRegistration(req: RegistrationRequest): RegistrationInput {
  const email = normalizeEmail(req.email);
  const { password } = req;
  if (!email || !password) throw invalid('Please enter all required fields');
  if (hasControlCharacters(email) || hasControlCharacters(password) || hasControlCharacters(req.name)) {
    throw invalid('Email, password and name must not contain control characters');
  }
  if (email.length > MAX_EMAIL_LENGTH) throw invalid(`Email must be at most ${MAX_EMAIL_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH) throw invalid(`Password must be at most ${MAX_PASSWORD_LENGTH} characters`);
  if (password !== req.passwordConfirmation) throw invalid('Passwords do not match');
  if (password.length < MIN_PASSWORD_LENGTH) throw invalid(`Password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (!isValidEmail(email)) throw invalid('Please enter a valid email address');
  const name = req.name.trim();
  if (name.length > MAX_NAME_LENGTH) throw invalid(`Name must be at most ${MAX_NAME_LENGTH} characters`);
  // An empty name stays empty: the product greets "User" then (spec), never the email's local part.
  return { email, password, name };
}
