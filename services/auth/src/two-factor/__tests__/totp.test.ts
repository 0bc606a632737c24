import { randomBytes } from 'node:crypto';
import { Secret } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { normaliseRecoveryCode, newRecoveryCodes, RECOVERY_CODE_COUNT } from '../recovery-codes.ts';
import { matchingStep, newTotpSecret, otpauthUri, stepAt, totpCode } from '../totp.ts';
import { createTwoFactorKeys } from '../two-factor-keys.ts';

// RFC 6238 appendix B, SHA-1 rows: the seed "12345678901234567890" (ASCII) and 8-digit codes; a
// 6-digit code is the same number's last six digits.
const RFC_SEED = Secret.fromUTF8('12345678901234567890').base32;
const RFC_VECTORS: [seconds: number, code: string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP', () => {
  it.each(RFC_VECTORS)('gives the RFC 6238 code at %i s', (seconds, code) => {
    expect(totpCode(RFC_SEED, new Date(seconds * 1000))).toBe(code.slice(-6));
    expect(matchingStep(RFC_SEED, code.slice(-6), new Date(seconds * 1000))).toBe(Math.floor(seconds / 30));
  });

  it('accepts the code of one step either side, not two', () => {
    const secret = newTotpSecret();
    const now = new Date(1_800_000_015_000);
    const at = (steps: number) => totpCode(secret, new Date(now.getTime() + steps * 30_000));
    expect(matchingStep(secret, at(0), now)).toBe(stepAt(now));
    expect(matchingStep(secret, at(-1), now)).toBe(stepAt(now) - 1);
    expect(matchingStep(secret, at(1), now)).toBe(stepAt(now) + 1);
    for (const steps of [-2, 2]) {
      // A code of two steps away may by chance equal one of the accepted three; then it is theirs.
      const code = at(steps);
      if (![at(-1), at(0), at(1)].includes(code)) expect(matchingStep(secret, code, now)).toBeNull();
    }
  });

  it('refuses what is not six digits', () => {
    const secret = newTotpSecret();
    const now = new Date();
    const code = totpCode(secret, now);
    expect(matchingStep(secret, `${code}0`, now)).toBeNull();
    expect(matchingStep(secret, code.slice(1), now)).toBeNull();
    expect(matchingStep(secret, 'abcdef', now)).toBeNull();
  });

  it('names the issuer Parley and the account by its email in the otpauth URI', () => {
    const uri = new URL(otpauthUri('JBSWY3DPEHPK3PXP', 'ada@example.com'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Parley:ada@example.com');
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      issuer: 'Parley',
      secret: 'JBSWY3DPEHPK3PXP',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});

describe('two-factor keys', () => {
  const keys = createTwoFactorKeys(randomBytes(32));

  it('encrypts a secret so that only its own user and key read it back', () => {
    const sealed = keys.encrypt('JBSWY3DPEHPK3PXP', 'user-a');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(keys.encrypt('JBSWY3DPEHPK3PXP', 'user-a')).not.toBe(sealed);
    expect(keys.decrypt(sealed, 'user-a')).toBe('JBSWY3DPEHPK3PXP');
    expect(() => keys.decrypt(sealed, 'user-b')).toThrow();
    expect(() => createTwoFactorKeys(randomBytes(32)).decrypt(sealed, 'user-a')).toThrow();
  });

  it('hashes recovery codes with its key', () => {
    expect(keys.hashRecoveryCode('abcde12345')).toMatch(/^[0-9a-f]{64}$/);
    expect(createTwoFactorKeys(randomBytes(32)).hashRecoveryCode('abcde12345')).not.toBe(keys.hashRecoveryCode('abcde12345'));
  });
});

describe('recovery codes', () => {
  it('makes ten different codes that read back however they are typed', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) {
      expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/);
      expect(normaliseRecoveryCode(` ${code.toUpperCase().replace('-', ' ')} `)).toBe(code.replace('-', ''));
    }
    expect(normaliseRecoveryCode('abcde-1234')).toBeNull();
    expect(normaliseRecoveryCode('abcde-1234u')).toBeNull();
  });
});
