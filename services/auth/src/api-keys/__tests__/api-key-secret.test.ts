import { describe, expect, it } from 'vitest';
import { API_KEY_PREFIX, base62, hashApiKeySecret, isApiKeySecretShaped, newApiKeySecret, secretHint } from '../api-key-secret.ts';

describe('API key secrets', () => {
  it('write every 32-byte value in 43 letters and digits', () => {
    expect(base62(new Uint8Array(32))).toBe('0'.repeat(43));
    const max = base62(new Uint8Array(32).fill(0xff));
    expect(max).toHaveLength(43);
    expect(BigInt(`0x${'ff'.repeat(32)}`)).toBe(
      [...max].reduce((n, c) => n * 62n + BigInt('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'.indexOf(c)), 0n),
    );
  });

  it('start with the prefix and are recognised by their shape alone', () => {
    const secret = newApiKeySecret();
    expect(secret.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(isApiKeySecretShaped(secret)).toBe(true);
    for (const bad of [secret.slice(0, -1), `${secret}0`, secret.replace(API_KEY_PREFIX, 'pk_live_'), `${secret.slice(0, -1)}_`, '']) {
      expect(isApiKeySecretShaped(bad)).toBe(false);
    }
  });

  it('differ each time, hash to 64 hex digits, and show only their prefix and last four', () => {
    const a = newApiKeySecret();
    const b = newApiKeySecret();
    expect(a).not.toBe(b);
    expect(hashApiKeySecret(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(secretHint(a)).toEqual({ prefix: 'parley_sk_', lastFour: a.slice(-4) });
  });
});
