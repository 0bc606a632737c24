// An API key's secret: "parley_sk_" and 256 random bits written as 43 letters and digits (base 62, so
// a double click selects it whole and no character needs escaping in a header or a shell). The
// prefix makes a leaked secret recognisable to people and to secret scanners. Only the SHA-256 of the
// whole secret is stored: 256 random bits cannot be guessed, so a slow or salted hash would add
// nothing but CPU on every call, and a plain hash can be looked up by its unique index.
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'parley_sk_';
export const SECRET_BYTES = 32;
/** 62^43 > 2^256: every 32-byte value has its 43 characters. */
export const SECRET_BODY_LENGTH = 43;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${SECRET_BODY_LENGTH}}$`);

/** Writes the bytes in base 62, most significant digit first, padded to 43 characters. */
export function base62(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(SECRET_BODY_LENGTH, ALPHABET[0]);
}

export function newApiKeySecret(): string {
  return API_KEY_PREFIX + base62(randomBytes(SECRET_BYTES));
}

/** Whether the text has the shape of a secret we issue; anything else is refused without a lookup. */
export const isApiKeySecretShaped = (text: string) => text.length === API_KEY_PREFIX.length + SECRET_BODY_LENGTH && SECRET.test(text);

export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** What a list shows of a secret: how it starts and its last four characters. */
export const secretHint = (secret: string) => ({ prefix: API_KEY_PREFIX, lastFour: secret.slice(-4) });
