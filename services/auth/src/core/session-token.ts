// Session tokens are opaque random strings. Only their SHA-256 is stored, so a leaked database
// row cannot be replayed as a session; 32 random bytes make guessing hopeless, so a fast hash is
// enough (no salt or slow hash needed, unlike passwords).
import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_BYTES = 32;

export function newSessionToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
