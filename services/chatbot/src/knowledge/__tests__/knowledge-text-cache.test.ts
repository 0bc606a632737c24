import { describe, expect, it } from 'vitest';
import { knowledgeTextCache } from '../knowledge-text-cache.ts';

const version = (id: string, ms = 1_000, knowledgeChars = 10) => ({ id, updatedAt: new Date(ms), knowledgeChars });
/** One untitled passage: its size is its text's length. */
const p = (text: string) => [{ text, entryId: 'e', title: '', url: '' }];

describe('knowledgeTextCache', () => {
  it('answers passages only for the exact version of the row it was stored for', () => {
    const cache = knowledgeTextCache();
    cache.set(version('a'), p('text of a'));
    expect(cache.get(version('a'))).toEqual(p('text of a'));
    expect(cache.get(version('a', 1_001))).toBeUndefined();
    expect(cache.get(version('a', 1_000, 11))).toBeUndefined();
    expect(cache.get(version('b'))).toBeUndefined();
    // A newer version replaces the older one.
    cache.set(version('a', 2_000), p('newer'));
    expect(cache.get(version('a'))).toBeUndefined();
    expect(cache.get(version('a', 2_000))).toEqual(p('newer'));
    expect(cache.size).toBe(5);
  });

  it('holds at most maxChars, dropping the least recently used first, and never a list over the bound', () => {
    const cache = knowledgeTextCache(10);
    cache.set(version('a'), p('aaaa'));
    cache.set(version('b'), p('bbbb'));
    expect(cache.get(version('a'))).toEqual(p('aaaa')); // a is now the most recently used
    cache.set(version('c'), p('cccc'));
    expect(cache.get(version('b'))).toBeUndefined();
    expect(cache.get(version('a'))).toEqual(p('aaaa'));
    expect(cache.get(version('c'))).toEqual(p('cccc'));
    expect(cache.size).toBe(8);
    cache.set(version('d'), p('d'.repeat(11)));
    expect(cache.get(version('d'))).toBeUndefined();
    expect(cache.size).toBe(8);
  });
});
