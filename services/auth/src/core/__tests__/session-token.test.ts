import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashSessionToken, newSessionToken } from '../session-token.ts';

describe('session tokens', () => {
  it('are 32 random bytes in base64url', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => newSessionToken()));
    expect(tokens.size).toBe(1000);
    for (const t of tokens) {
      expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(t, 'base64url')).toHaveLength(32);
    }
  });

  it('are stored as their SHA-256 hex digest', () => {
    const token = newSessionToken();
    expect(hashSessionToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hashSessionToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSessionToken(token)).not.toBe(hashSessionToken(newSessionToken()));
  });
});
