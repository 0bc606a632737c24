// Client-side checks (docs/product.md, Accounts and sessions), run before anything is sent. Each returns the message to show,
// or null when the input may be submitted. The new-password rules themselves live in
// lib/password-rules.ts, because the account page applies them too.
import { REQUIRED_FIELDS_MESSAGE, validateNewPassword, type NewPasswordValues } from '../../lib/password-rules';

export interface LoginValues {
  email: string;
  password: string;
}

export interface RegisterValues extends NewPasswordValues {
  email: string;
}

export function validateLogin({ email, password }: LoginValues): string | null {
  if (!email.trim() || !password) return 'Please enter all fields';
  return null;
}

export function validateRegister({ email, ...newPassword }: RegisterValues): string | null {
  if (!email.trim()) return REQUIRED_FIELDS_MESSAGE;
  return validateNewPassword(newPassword);
}

/** The reset link's form: a new password and its confirmation, judged as at registration. */
export function validateResetPassword(values: NewPasswordValues): string | null {
  return validateNewPassword(values);
}

export const EMAIL_REQUIRED_MESSAGE = 'Please enter your email address';

/** The forgot-password form: only an email, which the browser's email check has already looked at. */
export function validateForgotPassword(email: string): string | null {
  return email.trim() ? null : EMAIL_REQUIRED_MESSAGE;
}
