// The password rules (docs/product.md, Accounts and sessions), shared by registration, the reset link and the account page so a
// new password is judged the same way wherever it is chosen. Each check returns the message to
// show, or null when the input may be submitted.

export const MIN_PASSWORD_LENGTH = 6;
export const REQUIRED_FIELDS_MESSAGE = 'Please enter all required fields';
export const PASSWORDS_DO_NOT_MATCH_MESSAGE = 'Passwords do not match';
export const PASSWORD_TOO_SHORT_MESSAGE = `Password must be at least ${MIN_PASSWORD_LENGTH} characters`;

export interface NewPasswordValues {
  password: string;
  password2: string;
}

/** A new password and its confirmation: present, matching, then long enough (in that order, as registration). */
export function validateNewPassword({ password, password2 }: NewPasswordValues): string | null {
  if (!password) return REQUIRED_FIELDS_MESSAGE;
  if (password !== password2) return PASSWORDS_DO_NOT_MATCH_MESSAGE;
  if (password.length < MIN_PASSWORD_LENGTH) return PASSWORD_TOO_SHORT_MESSAGE;
  return null;
}
