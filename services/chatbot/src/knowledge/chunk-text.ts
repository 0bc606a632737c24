// Splits an entry into overlapping chunks, the unit of retrieval. Overlap keeps a sentence that
// straddles a boundary whole in at least one chunk. Cuts prefer a sentence end, then whitespace;
// text with neither (Chinese and Japanese have no spaces) is cut at the size limit, never inside a
// surrogate pair.

export interface ChunkOptions {
  /** Largest chunk, in UTF-16 code units. */
  size: number;
  /** Characters repeated from the end of one chunk at the start of the next. */
  overlap: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { size: 800, overlap: 150 };

const SENTENCE_END = /[.!?。！？;；\n]/;
const SPACE = /\s/;

export function chunkText(text: string, opts: ChunkOptions = DEFAULT_CHUNKING): string[] {
  const { size, overlap } = opts;
  if (overlap >= size / 2) throw new Error('overlap must be less than half the chunk size');
  const source = text.trim();
  if (!source) return [];
  if (source.length <= size) return [source];

  const chunks: string[] = [];
  let start = 0;
  while (start < source.length) {
    if (source.length - start <= size) {
      chunks.push(source.slice(start).trim());
      break;
    }
    const end = findCut(source, start, start + size);
    chunks.push(source.slice(start, end).trim());
    start = nextStart(source, start, end, overlap);
  }
  return chunks.filter((c) => c.length > 0);
}

/** Where to end a chunk that starts at `start` and may not pass `limit`. */
function findCut(text: string, start: number, limit: number): number {
  // Only the back half of the window is searched, so no chunk is cut much shorter than the size.
  const floor = start + Math.floor((limit - start) / 2);
  for (let i = limit; i > floor; i--) {
    // A sentence end followed by whitespace (Latin) or any sentence-ending CJK mark.
    const ch = text[i - 1];
    if (SENTENCE_END.test(ch) && (i === text.length || SPACE.test(text[i]) || /[。！？；]/.test(ch))) return i;
  }
  for (let i = limit; i > floor; i--) {
    if (SPACE.test(text[i])) return i;
  }
  return safeIndex(text, limit);
}

/** Where the next chunk starts: `overlap` characters before the cut, moved to a word start. */
function nextStart(text: string, start: number, cut: number, overlap: number): number {
  let next = cut - overlap;
  // Move forward to the start of a word unless the overlap has no whitespace at all (CJK).
  const space = text.slice(next, cut).search(SPACE);
  if (space >= 0 && next > 0 && !SPACE.test(text[next - 1])) next += space;
  while (next < cut && SPACE.test(text[next])) next++;
  next = safeIndex(text, next);
  // Always make progress, even on pathological input.
  return next > start ? next : cut;
}

/** Moves an index off the second half of a surrogate pair. */
function safeIndex(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code >= 0xdc00 && code <= 0xdfff ? i - 1 : i;
}
