// The operator's TWO_FACTOR_ENCRYPTION_KEY, and the two keys drawn from it: one encrypts TOTP secrets
// at rest (@parley/common/sealed-secret.ts, the user's id bound in as associated data), one keys the recovery codes' HMAC. Two derived keys
// so that no key serves two purposes; HKDF so the operator keeps one value.
import { createHmac, hkdfSync } from 'node:crypto';
import { open, seal } from '@parley/common/sealed-secret.ts';

export interface TwoFactorKeys {
  encrypt(plain: string, userId: string): string;
  decrypt(stored: string, userId: string): string;
  /** HMAC-SHA-256 (hex) of a normalised recovery code. */
  hashRecoveryCode(code: string): string;
}

export function createTwoFactorKeys(operatorKey: Buffer): TwoFactorKeys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', operatorKey, Buffer.alloc(0), `parley two-factor ${info}`, 32));
  const secretKey = derive('secret encryption');
  const recoveryKey = derive('recovery code hash');
  return {
    encrypt: (plain, userId) => seal(secretKey, plain, userId),
    decrypt: (stored, userId) => open(secretKey, stored, userId),
    hashRecoveryCode: (code) => createHmac('sha256', recoveryKey).update(code, 'utf8').digest('hex'),
  };
}
