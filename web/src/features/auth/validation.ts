// Client-side checks of spec §5, run before anything is sent. Each returns the message to show,
// or null when the input may be submitted.

export const MIN_PASSWORD_LENGTH = 6;

export interface LoginValues {
  email: string;
  password: string;
}

export interface RegisterValues {
  email: string;
  password: string;
  password2: string;
}

export function validateLogin({ email, password }: LoginValues): string | null {
  if (!email.trim() || !password) return 'Please enter all fields';
  return null;
}

export function validateRegister({ email, password, password2 }: RegisterValues): string | null {
  if (!email.trim() || !password) return 'Please enter all required fields';
  if (password !== password2) return 'Passwords do not match';
  if (password.length < MIN_PASSWORD_LENGTH) return `Password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  return null;
}
