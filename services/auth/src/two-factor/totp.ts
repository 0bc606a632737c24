// TOTP as authenticator apps expect it (RFC 6238): SHA-1, 6 digits, 30-second steps, issuer "Parley"
// and the account's email in the otpauth:// URI. A code of the step before or after the current one
// is accepted too (a phone's clock a little off, a code typed as it turned).
import { Secret, TOTP } from 'otpauth';

export const TOTP_ISSUER = 'Parley';
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one. */
export const TOTP_SKEW_STEPS = 1;

const totpOf = (base32Secret: string, email = '') =>
  new TOTP({
    issuer: TOTP_ISSUER,
    label: email,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(base32Secret),
  });

/** A new secret of 20 random bytes (RFC 4226's recommended length), in base32. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

export const otpauthUri = (base32Secret: string, email: string): string => totpOf(base32Secret, email).toString();

export const stepAt = (now: Date): number => Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS);

/** The time step whose code `code` is, within the accepted skew of `now`; null when it is none of them. */
export function matchingStep(base32Secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(base32Secret).validate({ token: code, timestamp: now.getTime(), window: TOTP_SKEW_STEPS });
  return delta === null ? null : stepAt(now) + delta;
}

/** The code of `now`'s step (tests, and nothing else, need to compute one). */
export const totpCode = (base32Secret: string, now: Date): string => totpOf(base32Secret).generate({ timestamp: now.getTime() });
