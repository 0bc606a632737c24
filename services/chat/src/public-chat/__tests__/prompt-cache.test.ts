import { describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { PublicChatbotSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { promptCache, type PromptCacheEntry } from '../prompt-cache.ts';

const entry = (id: string, passages: string[], storedAt = 1_000): PromptCacheEntry => ({
  chatbot: create(PublicChatbotSchema, { id, ownerId: `owner-${id}`, name: 'Bot' }),
  passages,
  revision: 'r1',
  budgetChars: 12_000,
  storedAt,
});

describe('promptCache', () => {
  it('gives an entry back until it is too old', () => {
    const cache = promptCache({ maxAgeMs: 100 });
    cache.set('u1', entry('a', ['We open at nine.'], 1_000));
    expect(cache.get('u1', 1_099)?.passages).toEqual(['We open at nine.']);
    expect(cache.get('u1', 1_100)).toBeUndefined();
    // Dropped, not only hidden.
    expect(cache.get('u1', 1_000)).toBeUndefined();
  });

  it('drops the least recently used entries beyond its entry limit', () => {
    const cache = promptCache({ maxEntries: 2 });
    cache.set('u1', entry('a', []));
    cache.set('u2', entry('b', []));
    cache.get('u1', 1_000);
    cache.set('u3', entry('c', []));
    expect(cache.get('u2', 1_000)).toBeUndefined();
    expect(cache.get('u1', 1_000)?.chatbot.id).toBe('a');
    expect(cache.get('u3', 1_000)?.chatbot.id).toBe('c');
  });

  it('keeps its characters under its bound, and never holds one entry larger than the bound', () => {
    const cache = promptCache({ maxChars: 100 });
    cache.set('u1', entry('a', ['x'.repeat(60)]));
    cache.set('u2', entry('b', ['y'.repeat(30)]));
    cache.set('u3', entry('c', ['z'.repeat(30)])); // 60 + 3 + 30 + 3 + 30 + 3 > 100: u1 goes
    expect(cache.get('u1', 1_000)).toBeUndefined();
    expect(cache.get('u2', 1_000)).toBeDefined();
    cache.set('u4', entry('d', ['w'.repeat(200)]));
    expect(cache.get('u4', 1_000)).toBeUndefined();
    expect(cache.get('u3', 1_000)).toBeDefined();
  });

  it('replaces an entry stored again, and forgets a deleted one', () => {
    const cache = promptCache();
    cache.set('u1', entry('a', ['old']));
    cache.set('u1', { ...entry('a', ['new']), revision: 'r2' });
    expect(cache.get('u1', 1_000)).toMatchObject({ passages: ['new'], revision: 'r2' });
    cache.delete('u1');
    expect(cache.get('u1', 1_000)).toBeUndefined();
  });
});
