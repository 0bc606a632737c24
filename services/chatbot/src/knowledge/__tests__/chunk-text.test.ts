import { describe, expect, it } from 'vitest';
import { chunkText, DEFAULT_CHUNKING, type ChunkOptions } from '../chunk-text.ts';

const SMALL: ChunkOptions = { size: 100, overlap: 20 };

/**
 * Where each chunk sits in the (trimmed) source, found left to right. Fails when a chunk is not a
 * verbatim piece of the source, or when chunks go backwards.
 */
function spans(source: string, chunks: string[]): { start: number; end: number }[] {
  const text = source.trim();
  const found: { start: number; end: number }[] = [];
  let from = 0;
  for (const chunk of chunks) {
    const start = text.indexOf(chunk, from);
    expect(start, `chunk not found in order: ${JSON.stringify(chunk.slice(0, 40))}`).toBeGreaterThanOrEqual(0);
    found.push({ start, end: start + chunk.length });
    from = start + 1;
  }
  return found;
}

/** Every character of the source is in some chunk, except whitespace between two chunks. */
function expectCovers(source: string, chunks: string[]): void {
  const text = source.trim();
  const s = spans(source, chunks);
  expect(s[0].start).toBe(0);
  expect(s[s.length - 1].end).toBe(text.length);
  for (let i = 1; i < s.length; i++) {
    const gap = text.slice(s[i - 1].end, s[i].start);
    expect(gap.trim(), `characters lost between chunks ${i - 1} and ${i}`).toBe('');
  }
}

/** The longest suffix of `a` that `b` starts with. */
function sharedEdge(a: string, b: string): string {
  for (let n = Math.min(a.length, b.length); n > 0; n--) if (b.startsWith(a.slice(a.length - n))) return a.slice(a.length - n);
  return '';
}

/** Deterministic pseudo-random text, so no chunk occurs twice in its source and spans are unambiguous. */
function randomText(alphabet: string[], length: number, seed = 7): string {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
}
const HAN = [...'人工智能正在改变世界我们的营业时间是周一至五上午九点到下午'];
const EMOJI = ['😀', '𝄞', '🎉', '🚀', '🍕', '🐼', '🌍', '🎸'];
const LETTERS = [...'abcdefghijklmnopqrstuvwxyz'];

const sentences = (n: number) =>
  Array.from({ length: n }, (_, i) => `Sentence number ${i} talks about topic ${i % 7} in some detail.`).join(' ');

describe('chunkText', () => {
  it('returns nothing for empty or blank text', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText(' \n\t ')).toEqual([]);
  });

  it('keeps a short text as one trimmed chunk', () => {
    expect(chunkText('  Opening hours: 9 to 5.  ')).toEqual(['Opening hours: 9 to 5.']);
    const exact = 'x'.repeat(DEFAULT_CHUNKING.size);
    expect(chunkText(exact)).toEqual([exact]);
  });

  it('splits a long text into chunks no longer than the size, covering every character', () => {
    const text = sentences(40);
    const chunks = chunkText(text, SMALL);
    expect(chunks.length).toBeGreaterThan(text.length / SMALL.size);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(SMALL.size);
      expect(c).toBe(c.trim());
      expect(c.length).toBeGreaterThan(0);
    }
    expectCovers(text, chunks);
  });

  it('repeats the end of each chunk at the start of the next, starting on a word', () => {
    const text = sentences(40);
    const chunks = chunkText(text, SMALL);
    for (let i = 1; i < chunks.length; i++) {
      const edge = sharedEdge(chunks[i - 1], chunks[i]);
      expect(edge.length, `no overlap between chunks ${i - 1} and ${i}`).toBeGreaterThan(0);
      expect(edge.length).toBeLessThanOrEqual(SMALL.overlap);
      // The overlap starts at a word boundary of the previous chunk.
      const before = chunks[i - 1][chunks[i - 1].length - edge.length - 1];
      expect(before).toMatch(/\s/);
    }
  });

  it('cuts after a sentence end when the back half of the window has one', () => {
    // Sentences of 30 characters: a window of 100 always holds a sentence end in its back half.
    const text = Array.from({ length: 20 }, (_, i) => `This is sentence ${String(i).padStart(3, '0')} of it.`).join(' ');
    const chunks = chunkText(text, SMALL);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(c).toMatch(/\.$/);
  });

  it('cuts at whitespace when there is no sentence end, never inside a word', () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`);
    const text = words.join(' ');
    const chunks = chunkText(text, SMALL);
    const known = new Set(words);
    for (const c of chunks) for (const w of c.split(' ')) expect(known.has(w), `split word "${w}"`).toBe(true);
    expectCovers(text, chunks);
  });

  it('does not take a dot inside a word (a version, a domain) for a sentence end', () => {
    const text = `${sentences(1)} Then see example.com and v1.2.3 for the details of ${sentences(2)}`;
    const chunks = chunkText(text, SMALL);
    for (const c of chunks) expect(c).not.toMatch(/(example|v1|v1\.2)\.$/);
    expectCovers(text, chunks);
  });

  it('cuts Chinese text without spaces at CJK sentence marks, and at the size limit when there are none', () => {
    // Sentences of 20 to 29 characters, each ending with a full-width stop.
    const withMarks = Array.from({ length: 20 }, (_, i) => `${randomText(HAN, 19 + (i % 10), i + 1)}。`).join('');
    const chunks = chunkText(withMarks, SMALL);
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks.slice(0, -1)) expect(c).toMatch(/。$/);
    expectCovers(withMarks, chunks);

    const noMarks = randomText(HAN, 500);
    const plain = chunkText(noMarks, SMALL);
    for (const c of plain.slice(0, -1)) expect(c).toHaveLength(SMALL.size);
    for (let i = 1; i < plain.length; i++) expect(plain[i].startsWith(plain[i - 1].slice(-SMALL.overlap))).toBe(true);
    expectCovers(noMarks, plain);
  });

  it('never splits a surrogate pair, whatever the alignment', () => {
    for (const prefix of ['', 'a', 'ab', 'abc']) {
      const text = prefix + randomText(EMOJI, 150, prefix.length + 1);
      const chunks = chunkText(text, SMALL);
      expect(chunks.length).toBeGreaterThan(3);
      for (const c of chunks) {
        expect(c).not.toMatch(/^[\uDC00-\uDFFF]/);
        expect(c).not.toMatch(/[\uD800-\uDBFF]$/);
        expect(c.isWellFormed()).toBe(true);
        expect(c.length).toBeLessThanOrEqual(SMALL.size);
      }
      expectCovers(text, chunks);
    }
  });

  it('makes progress on pathological input (one huge word, runs of whitespace)', () => {
    const huge = randomText(LETTERS, 1000);
    const chunks = chunkText(huge, SMALL);
    expect(chunks.length).toBeLessThan(20);
    expectCovers(huge, chunks);

    const spaced = `${randomText(LETTERS, 30)} ${' '.repeat(300)}${sentences(3)}`;
    const spacedChunks = chunkText(spaced, SMALL);
    for (const c of spacedChunks) expect(c.trim()).toBe(c);
    expectCovers(spaced, spacedChunks);
  });

  it('uses 800-character chunks with a 150-character overlap by default', () => {
    const text = sentences(100);
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(text.length / 800);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(800);
    expect(Math.max(...chunks.map((c) => c.length))).toBeGreaterThan(400);
    for (let i = 1; i < chunks.length; i++) {
      const edge = sharedEdge(chunks[i - 1], chunks[i]).length;
      expect(edge).toBeGreaterThan(0);
      expect(edge).toBeLessThanOrEqual(150);
    }
    expectCovers(text, chunks);
  });

  it('refuses an overlap of half the size or more', () => {
    expect(() => chunkText('text', { size: 100, overlap: 50 })).toThrow('overlap must be less than half the chunk size');
    expect(() => chunkText('text', { size: 100, overlap: 49 })).not.toThrow();
  });
});
