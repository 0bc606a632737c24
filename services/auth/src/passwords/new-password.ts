// The rules for a new password wherever one is chosen after sign-up (reset, change), with the same
// messages as registration (core/registration-input.ts).
import { invalid } from '@parley/common/rpc-errors.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../core/registration-input.ts';

/** Returns the password unchanged (never trimmed), or throws InvalidArgument with the message to show. */
export function parseNewPassword(password: string, confirmation: string): string {
  if (!password) throw invalid('Please enter all required fields');
  if (hasControlCharacters(password)) throw invalid('Password must not contain control characters');
  if (password.length > MAX_PASSWORD_LENGTH) throw invalid(`Password must be at most ${MAX_PASSWORD_LENGTH} characters`);
  if (password !== confirmation) throw invalid('Passwords do not match');
  if (password.length < MIN_PASSWORD_LENGTH) throw invalid(`Password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return password;
}
