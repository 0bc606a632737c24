import { argon2Sync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dummyPasswordHash, hashPassword, parsePasswordHash, verifyPassword } from '../password-hash.ts';

const b64 = (buf: Buffer) => buf.toString('base64').replace(/=+$/, '');

describe('password hashing', () => {
  it('stores an argon2id PHC string with OWASP parameters, a 16-byte salt and a 32-byte tag', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    const parsed = parsePasswordHash(stored);
    expect(parsed.nonce).toHaveLength(16);
    expect(parsed.tag).toHaveLength(32);
    expect(stored).not.toContain('correct horse');
  });

  it('verifies the right password and rejects a wrong one', async () => {
    const stored = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsf', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts each hash, so the same password hashes differently', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password', a)).toBe(true);
    expect(await verifyPassword('same password', b)).toBe(true);
  });

  it('handles non-ASCII passwords', async () => {
    const stored = await hashPassword('pässwörd-密码-🔑');
    expect(await verifyPassword('pässwörd-密码-🔑', stored)).toBe(true);
    expect(await verifyPassword('passwort-密码-🔑', stored)).toBe(false);
  });

  it('reads the parameters from the stored string (hashes made with other settings still verify)', async () => {
    const nonce = randomBytes(16);
    const tag = argon2Sync('argon2id', { message: 'older hash', nonce, memory: 8192, passes: 3, parallelism: 2, tagLength: 24 });
    const stored = `$argon2id$v=19$m=8192,t=3,p=2$${b64(nonce)}$${b64(tag)}`;
    expect(await verifyPassword('older hash', stored)).toBe(true);
    expect(await verifyPassword('other', stored)).toBe(false);
  });

  it('fails when the stored hash was tampered with', async () => {
    const stored = await hashPassword('secret1');
    const parts = stored.split('$');
    const tag = Buffer.from(parts[5], 'base64');
    tag[0] ^= 1;
    parts[5] = b64(tag);
    expect(await verifyPassword('secret1', parts.join('$'))).toBe(false);
  });

  it('refuses stored hashes it does not understand instead of guessing', async () => {
    await expect(verifyPassword('x', 'plain-text')).rejects.toThrow('unsupported password hash format');
    await expect(verifyPassword('x', '$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaA')).rejects.toThrow('format');
    const huge = `$argon2id$v=19$m=99999999,t=2,p=1$${b64(randomBytes(16))}$${b64(randomBytes(32))}`;
    await expect(verifyPassword('x', huge)).rejects.toThrow('unsupported password hash parameters');
  });

  it('has a dummy hash for unknown accounts that matches no password', async () => {
    const dummy = await dummyPasswordHash();
    expect(dummy).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await dummyPasswordHash()).toBe(dummy);
    expect(await verifyPassword('', dummy)).toBe(false);
    expect(await verifyPassword('password', dummy)).toBe(false);
  });
});
