import { describe, expect, it } from 'vitest';
import { cache } from '../src/cache.ts';

const clock = (start = 1_000) => {
  const c = { t: start, now: () => c.t };
  return c;
};

describe('cache', () => {
  it('gives a value back only under the token it was stored with', () => {
    const c = cache<string, string, string | null>();
    c.set('bot', 'r1', 'We open at nine.');
    expect(c.get('bot', 'r1')).toBe('We open at nine.');
    expect(c.get('bot', 'r2')).toBeUndefined();
    expect(c.get('bot', null)).toBeUndefined();
    // A miss under another token does not drop the entry; storing under a new token replaces it.
    expect(c.get('bot', 'r1')).toBe('We open at nine.');
    c.set('bot', null, 'no revision');
    expect(c.get('bot', null)).toBe('no revision');
    expect(c.get('bot', 'r1')).toBeUndefined();
  });

  it('drops an entry maxAgeMs after it was stored, however often it is read', () => {
    const t = clock();
    const c = cache<string, string>({ maxAgeMs: 100, now: t.now });
    c.set('a', null, 'x');
    t.t = 1_099;
    expect(c.get('a', null)).toBe('x');
    t.t = 1_100;
    expect(c.get('a', null)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('drops the least recently used entries beyond its entry limit', () => {
    const c = cache<string, string>({ maxEntries: 2 });
    c.set('u1', null, 'a');
    c.set('u2', null, 'b');
    c.get('u1', null);
    c.set('u3', null, 'c');
    expect(c.get('u2', null)).toBeUndefined();
    expect(c.get('u1', null)).toBe('a');
    expect(c.get('u3', null)).toBe('c');
  });

  it('keeps its total size under its bound, and never holds one value larger than the bound', () => {
    const c = cache<string, string>({ maxSize: 100, sizeOf: (v) => v.length });
    c.set('u1', null, 'x'.repeat(60));
    c.set('u2', null, 'y'.repeat(30));
    c.set('u3', null, 'z'.repeat(30)); // 120 > 100: u1 goes
    expect(c.get('u1', null)).toBeUndefined();
    expect(c.totalSize).toBe(60);
    c.set('u4', null, 'w'.repeat(200));
    expect(c.get('u4', null)).toBeUndefined();
    expect(c.get('u3', null)).toBeDefined();
    // Storing a too-large value still removes what its key held.
    c.set('u3', null, 'w'.repeat(200));
    expect(c.get('u3', null)).toBeUndefined();
    expect(c.totalSize).toBe(30);
    c.delete('u2');
    expect(c.totalSize).toBe(0);
  });

  it('holds nothing with maxEntries 0', () => {
    const c = cache<string, string>({ maxEntries: 0 });
    c.set('a', null, 'x');
    expect(c.size).toBe(0);
  });

  describe('getOrLoad', () => {
    const deferred = <T>() => {
      let resolve!: (v: T) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
      return { promise, resolve, reject };
    };

    it('reads through, and shares one load among concurrent callers of one key and token', async () => {
      const c = cache<string, string, string>();
      const load = deferred<string>();
      let loads = 0;
      const loader = () => (loads++, load.promise);
      const both = Promise.all([c.getOrLoad('k', 't1', loader), c.getOrLoad('k', 't1', loader)]);
      load.resolve('v');
      expect(await both).toEqual(['v', 'v']);
      expect(loads).toBe(1);
      expect(await c.getOrLoad('k', 't1', loader)).toBe('v');
      expect(loads).toBe(1);
      // Another token is another load.
      expect(await c.getOrLoad('k', 't2', async () => 'v2')).toBe('v2');
      expect(c.get('k', 't1')).toBeUndefined();
    });

    it('stores nothing from a failed load, and its waiters all see the failure', async () => {
      const c = cache<string, string, string>();
      const load = deferred<string>();
      const both = Promise.allSettled([c.getOrLoad('k', 't', () => load.promise), c.getOrLoad('k', 't', () => load.promise)]);
      load.reject(new Error('down'));
      expect((await both).map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect(c.size).toBe(0);
      expect(await c.getOrLoad('k', 't', async () => 'later')).toBe('later');
    });

    it('keeps only what `keep` accepts', async () => {
      const c = cache<string, string, string>();
      expect(await c.getOrLoad('k', 't', async () => 'retrieved', { keep: (v) => v !== 'retrieved' })).toBe('retrieved');
      expect(c.size).toBe(0);
    });

    it('does not store a load overtaken by one for a newer token', async () => {
      const c = cache<string, string, string>();
      const old = deferred<string>();
      const first = c.getOrLoad('k', 'old', () => old.promise);
      expect(await c.getOrLoad('k', 'new', async () => 'fresh')).toBe('fresh');
      old.resolve('stale');
      expect(await first).toBe('stale');
      expect(c.get('k', 'old')).toBeUndefined();
      expect(c.get('k', 'new')).toBe('fresh');
    });
  });
});
