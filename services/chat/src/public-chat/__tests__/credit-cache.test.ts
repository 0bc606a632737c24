import { describe, expect, it } from 'vitest';
import { CREDIT_CACHE_MIN_BALANCE, CREDIT_CACHE_MS, creditCache } from '../owner-credit.ts';

describe('creditCache', () => {
  it('reuses a balance of at least 0.10 for at most 2 s', () => {
    let now = 0;
    const cache = creditCache({ now: () => now });
    expect(CREDIT_CACHE_MS).toBe(2_000);
    expect(CREDIT_CACHE_MIN_BALANCE).toBe(0.1);
    cache.remember('owner', '0.1000000000');
    expect(cache.hasCredit('owner')).toBe(true);
    expect(cache.hasCredit('other')).toBe(false);
    now = 1_999;
    expect(cache.hasCredit('owner')).toBe(true);
    now = 2_000;
    expect(cache.hasCredit('owner')).toBe(false);
  });

  it('never reuses a low, empty or negative balance, and forgets an owner whose balance fell', () => {
    const cache = creditCache({ now: () => 0 });
    for (const balance of ['0.0999999999', '0.01', '0.0000000001', '0', '-5', 'abc', '']) {
      cache.remember('owner', balance);
      expect(cache.hasCredit('owner')).toBe(false);
    }
    cache.remember('owner', '1000');
    expect(cache.hasCredit('owner')).toBe(true);
    cache.remember('owner', '0.05');
    expect(cache.hasCredit('owner')).toBe(false);
  });

  it('cannot be configured past its bounds, and holds a bounded number of owners', () => {
    let now = 0;
    const cache = creditCache({ ttlMs: 60_000, minBalance: 0.001, maxOwners: 2, now: () => now });
    cache.remember('a', '0.05');
    expect(cache.hasCredit('a')).toBe(false);
    cache.remember('a', '1');
    now = 2_000;
    expect(cache.hasCredit('a')).toBe(false);
    cache.remember('a', '1');
    cache.remember('b', '1');
    cache.remember('c', '1');
    expect([cache.hasCredit('a'), cache.hasCredit('b'), cache.hasCredit('c')]).toEqual([false, true, true]);
  });
});
