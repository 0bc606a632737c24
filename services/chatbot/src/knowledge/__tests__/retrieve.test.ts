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

  it('matches exactly the documents holding at least j of the terms (every j of up to 8 terms)', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    for (let n = 1; n <= names.length; n++) {
      const terms = names.slice(0, n);
      for (let j = 1; j <= n; j++) {
        const expr = atLeast(terms, j).replace(/&/g, '&&').replace(/\|/g, '||');
        const matches = new Function(...terms, `return ${expr};`) as (...held: boolean[]) => boolean;
        for (let mask = 0; mask < 1 << n; mask++) {
          const held = terms.map((_, i) => ((mask >> i) & 1) === 1);
          expect(matches(...held)).toBe(held.filter(Boolean).length >= j);
        }
      }
    }
  });

  it('splits the terms in halves rather than listing every subset (48 operands for 4 of 8, not 280)', () => {
    expect(atLeast(['a', 'b', 'c'], 2)).toBe('(a & (b | c)) | (b & c)');
    const terms = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    expect(atLeast(terms, 4).match(/[a-h]/g)).toHaveLength(48);
    expect(atLeast(terms, 7).match(/[a-h]/g)).toHaveLength(24);
  });

  it('keeps quoted operands intact', () => {
    expect(atLeast(["'run'", "'it''s'"], 2)).toBe("('run' & 'it''s')");
  });
});

describe('searchSql', () => {
  it('has one level per term, from all terms down to one, and binds the terms as parameters', () => {
    const { sql, params } = searchSql('chatbot-id', 5, ["'a'", "'b'", "'c'"]);
    expect(params).toEqual([
      'chatbot-id',
      5,
      ["'a'", "'b'", "'c'"],
      "'a' | 'b' | 'c'",
      "('a' & 'b' & 'c')",
      "('a' & ('b' | 'c')) | ('b' & 'c')",
      "'a' | 'b' | 'c'",
    ]);
    expect(sql).toContain('l0 AS (');
    expect(sql).toContain('l2 AS (');
    expect(sql).not.toContain('l3 AS (');
    // No term text is spliced into the statement.
    expect(sql).not.toContain("'a'");
  });

  it('looks a level up by its other terms when the dense terms cannot make it alone, and checks it in full on the rows', () => {
    const { sql, params } = searchSql('chatbot-id', 5, ["'a'", "'b'", "'c'"], [false, true, false]);
    expect(params).toEqual([
      'chatbot-id',
      5,
      ["'a'", "'b'", "'c'"],
      "'a' | 'b' | 'c'",
      "('a' & 'c')", // 3 of 3: both others, then all three on the row
      "('a' & 'b' & 'c')",
      "'a' | 'c'", // 2 of 3: at least one other, then two of three on the row
      "('a' & ('b' | 'c')) | ('b' & 'c')",
      "'a' | 'b' | 'c'", // 1 of 3: 'b' alone makes it, so the index gets every term
    ]);
    expect(sql.match(/ts_match_vq/g)).toHaveLength(2);
  });
});
