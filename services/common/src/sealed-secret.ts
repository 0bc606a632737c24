// A secret kept at rest under an operator's key: AES-256-GCM, a fresh 12-byte nonce each time, and
// associated data binding it to its row (a ciphertext copied to another row does not open). Stored as
// "v1.<nonce>.<ciphertext>.<tag>" in base64url. Auth's two-factor secrets and chat's provider keys
// both use it; the operator's key itself is read by encryptionKey, so every service checks it alike.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ConfigError } from './config.ts';

const VERSION = 'v1';

export function seal(key: Buffer, plain: string, associatedData: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(associatedData));
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, nonce.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

/** The plain text, or an error (without the text) when the value is malformed or was sealed under another key or row. */
export function open(key: Buffer, stored: string, associatedData: string): string {
  const [version, nonce, sealed, tag] = stored.split('.');
  if (version !== VERSION || !nonce || !sealed || !tag) throw new Error('unreadable sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * A config parser of an operator's encryption key: 32 bytes in base64 (e.g. `openssl rand -base64 32`);
 * production refuses the development default. The value is never repeated in a message.
 */
export const encryptionKey =
  (developmentDefault: string) =>
  (raw: string, name: string, env: NodeJS.ProcessEnv): Buffer => {
    if (env.NODE_ENV === 'production' && raw === developmentDefault) {
      throw new ConfigError(`${name} is required in production (32 random bytes in base64, e.g. openssl rand -base64 32)`);
    }
    const key = Buffer.from(raw, 'base64');
    if (key.length !== 32 || key.toString('base64') !== raw) {
      throw new ConfigError(`${name} must be 32 bytes in base64 (e.g. openssl rand -base64 32); the value is not shown`);
    }
    return key;
  };
