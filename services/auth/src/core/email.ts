// Emails are compared case-insensitively: they are stored trimmed and lower-cased, and the unique
// index on that form is what keeps two accounts from sharing an address.

export const MAX_EMAIL_LENGTH = 254; // RFC 5321's limit for a forward path

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

// The WHATWG rule behind <input type="email">, plus a dot in the domain so that addresses we could
// never deliver to ("me@localhost") are refused.
const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

export function isValidEmail(email: string): boolean {
  return EMAIL.test(email);
}

/** The domain of a normalised email: what a workspace claims for single sign-on. */
export const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();
