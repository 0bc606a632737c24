import { describe, expect, it } from 'vitest';
import { atLeast, searchSql } from '../retrieve.ts';

describe('atLeast', () => {
  it('is the single term for one term', () => {
    expect(atLeast(['a'], 1)).toBe('a');
  });

  it('is an OR of the terms for at least one', () => {
    expect(atLeast(['a', 'b', 'c'], 1)).toBe('a | b | c');
  });

  it('is the AND of all terms for all of them', () => {
    expect(atLeast(['a', 'b', 'c'], 3)).toBe('(a & b & c)');
  });

  it('is the OR of the ANDs of every subset of the given size, in term order', () => {
    expect(atLeast(['a', 'b', 'c'], 2)).toBe('(a & b) | (a & c) | (b & c)');
    expect(atLeast(['a', 'b', 'c', 'd'], 3)).toBe('(a & b & c) | (a & b & d) | (a & c & d) | (b & c & d)');
  });

  it('has C(n, j) groups (70 for 4 of 8 terms, the largest level)', () => {
    const terms = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    expect(atLeast(terms, 4).split(' | ')).toHaveLength(70);
    expect(atLeast(terms, 7).split(' | ')).toHaveLength(8);
    expect(new Set(atLeast(terms, 4).split(' | ')).size).toBe(70);
  });

  it('keeps quoted operands intact', () => {
    expect(atLeast(["'run'", "'it''s'"], 2)).toBe("('run' & 'it''s')");
  });
});

describe('searchSql', () => {
  it('has one level per term, from all terms down to one, and binds the terms as parameters', () => {
    const { sql, params } = searchSql('chatbot-id', 5, ["'a'", "'b'", "'c'"]);
    expect(params).toEqual(['chatbot-id', 5, ["'a'", "'b'", "'c'"], "'a' | 'b' | 'c'", "('a' & 'b' & 'c')", "('a' & 'b') | ('a' & 'c') | ('b' & 'c')", "'a' | 'b' | 'c'"]);
    expect(sql).toContain('l0 AS (');
    expect(sql).toContain('l2 AS (');
    expect(sql).not.toContain('l3 AS (');
    // No term text is spliced into the statement.
    expect(sql).not.toContain("'a'");
  });
});
