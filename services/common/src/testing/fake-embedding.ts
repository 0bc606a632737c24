// The fake OpenAI's embedding of a text, so tests and the retrieval evaluation (bench/retrieval-eval.ts)
// run without a real model. Deterministic and normalised, and meaningful enough that a paraphrase
// lands near its source: the text's stemmed words (a crude English suffix stripper, stop words
// dropped) and their character trigrams are hashed into `dimensions` buckets, each with a hashed
// sign so unrelated features cancel rather than pile up. Words weigh more than trigrams; trigrams
// let "configure" and "configuration" share most of their weight.
export const FAKE_EMBEDDING_DIMENSIONS = 256;

const WORD_WEIGHT = 1;
const TRIGRAM_WEIGHT = 0.35;

const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could do does did for from has have how i if in into is it its me my no not of on or ' +
    'our should so that the their them then there these they this to was we were what when where which who why will with would ' +
    'you your yours about any all also just than too very'
  ).split(' '),
);

const SUFFIXES = [
  'ational',
  'ization',
  'ations',
  'ation',
  'ments',
  'ment',
  'ness',
  'ings',
  'ing',
  'ies',
  'ied',
  'ers',
  'er',
  'ed',
  'es',
  'ly',
  's',
];

/** A crude English stem: the longest listed suffix stripped when at least three letters remain. */
export function fakeStem(word: string): string {
  for (const suffix of SUFFIXES) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

/** FNV-1a, 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function fakeEmbedding(text: string, dimensions = FAKE_EMBEDDING_DIMENSIONS): number[] {
  // Counted first, then damped (1 + ln count), so a word repeated through a long chunk does not drown the rest.
  const counts = new Map<string, number>();
  const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    if (STOP_WORDS.has(word)) continue;
    const stem = fakeStem(word);
    add(`w:${stem}`, WORD_WEIGHT);
    const padded = ` ${stem} `;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, TRIGRAM_WEIGHT);
  }
  const v = new Float64Array(dimensions);
  for (const [feature, count] of counts) {
    const h = hash(feature);
    const weight = feature.startsWith('w:') ? WORD_WEIGHT : TRIGRAM_WEIGHT;
    v[h % dimensions] += (h & 0x80000000 ? -1 : 1) * weight * (1 + Math.log(count / weight));
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0) {
    // Nothing to go on (empty text, stop words only): a fixed unit vector.
    const unit = new Array<number>(dimensions).fill(0);
    unit[0] = 1;
    return unit;
  }
  const scale = 1 / Math.sqrt(norm);
  return Array.from(v, (x) => x * scale);
}
