// Ten single-use recovery codes, for when the authenticator is lost. Each is 10 characters of
// Crockford's base32 alphabet, which leaves out the look-alikes i, l, o and u (50 random bits), shown as "xxxxx-xxxxx". They are
// high-entropy, so a fast keyed hash (HMAC-SHA-256, two-factor-keys.ts) is enough: a slow password hash
// only helps against guessable secrets; the key keeps a stolen table from being checked offline.
import { randomInt } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const LENGTH = 10;

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** A typed recovery code as it is hashed: lower case, without spaces or dashes; null when it cannot be one. */
export function normaliseRecoveryCode(typed: string): string | null {
  const code = typed.toLowerCase().replace(/[\s-]/g, '');
  return code.length === LENGTH && [...code].every((c) => ALPHABET.includes(c)) ? code : null;
}
