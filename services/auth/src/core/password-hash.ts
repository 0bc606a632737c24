// Password hashing with Node's built-in Argon2id at OWASP's recommended minimum (19 MiB, 2 passes,
// 1 lane), stored as a PHC string so the parameters travel with each hash and can be raised later
// without breaking existing accounts.
import { argon2, randomBytes, timingSafeEqual, type Argon2Parameters } from 'node:crypto';

export const ARGON2_PARAMS = { memory: 19456, passes: 2, parallelism: 1, tagLength: 32 } as const;
const NONCE_BYTES = 16;
const VERSION = 19;

function derive(params: Argon2Parameters): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    argon2('argon2id', params, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

// PHC strings use standard base64 without padding.
const b64 = (buf: Buffer) => buf.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string): Promise<string> {
  const nonce = randomBytes(NONCE_BYTES);
  const { memory, passes, parallelism, tagLength } = ARGON2_PARAMS;
  const tag = await derive({ message: password, nonce, memory, passes, parallelism, tagLength });
  return `$argon2id$v=${VERSION}$m=${memory},t=${passes},p=${parallelism}$${b64(nonce)}$${b64(tag)}`;
}

interface ParsedHash {
  memory: number;
  passes: number;
  parallelism: number;
  nonce: Buffer;
  tag: Buffer;
}

const PHC = /^\$argon2id\$v=(\d+)\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** Parses a stored hash; bounds keep a corrupt row from asking for gigabytes of memory. */
export function parsePasswordHash(stored: string): ParsedHash {
  const m = PHC.exec(stored);
  if (!m) throw new Error('unsupported password hash format');
  const [version, memory, passes, parallelism] = m.slice(1, 5).map(Number);
  const nonce = Buffer.from(m[5], 'base64');
  const tag = Buffer.from(m[6], 'base64');
  if (
    version !== VERSION ||
    memory < 8 * parallelism ||
    memory > 1024 * 1024 ||
    passes < 1 ||
    passes > 100 ||
    parallelism < 1 ||
    parallelism > 64 ||
    nonce.length < 8 ||
    tag.length < 16 ||
    tag.length > 128
  ) {
    throw new Error('unsupported password hash parameters');
  }
  return { memory, passes, parallelism, nonce, tag };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const { memory, passes, parallelism, nonce, tag } = parsePasswordHash(stored);
  const candidate = await derive({ message: password, nonce, memory, passes, parallelism, tagLength: tag.length });
  return timingSafeEqual(candidate, tag);
}

let dummy: Promise<string> | undefined;

/**
 * A hash of a random secret, verified when the email is unknown so that a login for a missing
 * account takes about as long as one with a wrong password (no account enumeration by timing).
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(24).toString('base64url'));
  return dummy;
}
