import { describe, expect, it } from 'vitest';
import { newUniqueId } from '../unique-id.ts';

describe('newUniqueId', () => {
  it('is 22 URL-safe characters holding 128 random bits', () => {
    const id = newUniqueId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(encodeURIComponent(id)).toBe(id);
    expect(Buffer.from(id, 'base64url')).toHaveLength(16);
  });

  it('is different every time', () => {
    const ids = Array.from({ length: 10_000 }, newUniqueId);
    expect(new Set(ids).size).toBe(ids.length);
    // Not a counter or a timestamp: ids share no common prefix.
    expect(new Set(ids.map((id) => id.slice(0, 2))).size).toBeGreaterThan(1000);
  });
});
