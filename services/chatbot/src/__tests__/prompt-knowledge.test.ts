import { describe, expect, it } from 'vitest';
import { retrievalK } from '../prompt-knowledge.ts';
import { DEFAULT_K, MAX_K } from '../knowledge/retrieve.ts';

describe('retrievalK', () => {
  it('asks one chunk per 400 characters of budget, between 1 and MAX_K', () => {
    expect(retrievalK(1)).toBe(1);
    expect(retrievalK(400)).toBe(1);
    expect(retrievalK(401)).toBe(2);
    expect(retrievalK(12_000)).toBe(30);
    expect(retrievalK(20_000)).toBe(MAX_K);
    expect(retrievalK(1_000_000)).toBe(MAX_K);
  });

  it('is the default without a budget', () => {
    expect(retrievalK(0)).toBe(DEFAULT_K);
  });
});
