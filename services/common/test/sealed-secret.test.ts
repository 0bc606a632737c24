import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config.ts';
import { encryptionKey, open, seal } from '../src/sealed-secret.ts';

const key = Buffer.alloc(32, 1);
const other = Buffer.alloc(32, 2);

describe('a sealed secret', () => {
  it('opens under its key and associated data only, and never holds the text in the clear', () => {
    const sealed = seal(key, 'sk-live-secret', 'owner-1:anthropic');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('sk-live-secret');
    expect(open(key, sealed, 'owner-1:anthropic')).toBe('sk-live-secret');
    // A fresh nonce each time.
    expect(seal(key, 'sk-live-secret', 'owner-1:anthropic')).not.toBe(sealed);
    expect(() => open(other, sealed, 'owner-1:anthropic')).toThrow();
    expect(() => open(key, sealed, 'owner-2:anthropic')).toThrow();
    expect(() => open(key, 'v2.a.b.c', 'owner-1:anthropic')).toThrow('unreadable sealed secret');
  });

  it('reads an operator key as 32 bytes of base64, refusing the development default in production and never echoing a value', () => {
    const dev = Buffer.alloc(32, 3).toString('base64');
    const parse = encryptionKey(dev);
    expect(parse(key.toString('base64'), 'K', {}).equals(key)).toBe(true);
    expect(parse(dev, 'K', {}).toString('base64')).toBe(dev);
    expect(() => parse(dev, 'K', { NODE_ENV: 'production' })).toThrowError(ConfigError);
    expect(() => parse('bm90LTMyLWJ5dGVz', 'K', {})).toThrowError(/K must be 32 bytes in base64/);
    try {
      parse('bm90LTMyLWJ5dGVz', 'K', {});
    } catch (err) {
      expect((err as Error).message).not.toContain('bm90LTMyLWJ5dGVz');
    }
  });
});
