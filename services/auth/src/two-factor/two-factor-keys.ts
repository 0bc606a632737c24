// The operator's TWO_FACTOR_ENCRYPTION_KEY, and the two keys drawn from it: one encrypts TOTP secrets
// at rest (AES-256-GCM, a fresh 12-byte nonce each time, the user's id bound in as associated data so
// a secret copied to another row does not decrypt), one keys the recovery codes' HMAC. Two derived keys
// so that no key serves two purposes; HKDF so the operator keeps one value.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

export interface TwoFactorKeys {
  encrypt(plain: string, userId: string): string;
  decrypt(stored: string, userId: string): string;
  /** HMAC-SHA-256 (hex) of a normalised recovery code. */
  hashRecoveryCode(code: string): string;
}

const VERSION = 'v1';

export function createTwoFactorKeys(operatorKey: Buffer): TwoFactorKeys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', operatorKey, Buffer.alloc(0), `parley two-factor ${info}`, 32));
  const secretKey = derive('secret encryption');
  const recoveryKey = derive('recovery code hash');
  return {
    encrypt(plain, userId) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', secretKey, nonce);
      cipher.setAAD(Buffer.from(userId));
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, nonce.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    decrypt(stored, userId) {
      const [version, nonce, sealed, tag] = stored.split('.');
      if (version !== VERSION || !nonce || !sealed || !tag) throw new Error('unreadable two-factor secret');
      const decipher = createDecipheriv('aes-256-gcm', secretKey, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(userId));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
    },
    hashRecoveryCode: (code) => createHmac('sha256', recoveryKey).update(code, 'utf8').digest('hex'),
  };
}
