// The answer's `[n]` markers as small superscript badges (ADR 16). The server renumbers them so
// [1] is the first source; a marker with no source behind it stays plain text. Only prose is split:
// the Markdown renderer hands over text outside code and links (renderText), and a plain answer is
// all prose.
import type { ChatSource } from './chat-sources';

/** One marker that names a source: shown as a badge numbered `number`, titled by the source. */
export interface Citation {
  number: number;
  source: ChatSource;
}

export const CITATION_BADGE_CLASS =
  'mx-0.5 inline-block min-w-4 rounded-full bg-brand-50 px-1 text-center align-super text-[10px] leading-4 font-semibold text-brand-700 tabular-nums ring-1 ring-brand-200 ring-inset';

const MARKER = /\[(\d{1,3})\]/g;

/** A text's pieces: plain text between the citations for the markers that name a source. */
export function splitMarkers(text: string, sources: ChatSource[]): Array<string | Citation> {
  const pieces: Array<string | Citation> = [];
  let last = 0;
  for (const match of text.matchAll(MARKER)) {
    const number = Number(match[1]);
    const source = sources[number - 1];
    if (!source || number < 1) continue;
    if (match.index > last) pieces.push(text.slice(last, match.index));
    pieces.push({ number, source });
    last = match.index + match[0].length;
  }
  if (last === 0) return [text];
  if (last < text.length) pieces.push(text.slice(last));
  return pieces;
}

/**
 * Badges that stay on the line of the words they cite: each run of citations with the last word
 * before it and the punctuation right after it, so a line never starts with a lone badge.
 */
export interface CitationRun {
  before: string;
  citations: Citation[];
  after: string;
}

const LONGEST_WORD_KEPT = 30;

/** `splitMarkers`'s pieces with each run of citations joined to its neighbouring word (CitationRun). */
export function citationRuns(pieces: Array<string | Citation>): Array<string | CitationRun> {
  const out: Array<string | CitationRun> = [];
  /** How much of the current text piece the run before it took (its punctuation). */
  let taken = 0;
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    if (typeof piece === 'string') {
      if (piece.length > taken) out.push(piece.slice(taken));
      taken = 0;
      continue;
    }
    const citations = [piece];
    while (typeof pieces[i + 1] === 'object') citations.push(pieces[++i] as Citation);
    // The word before, with the space that parts it from the badge, out of the text already out (a
    // very long one, a link's address, stays there: kept on one line it could not wrap at all).
    let before = '';
    const previous = out.at(-1);
    if (typeof previous === 'string') {
      const word = /\S*\s*$/.exec(previous)![0];
      before = word.length > LONGEST_WORD_KEPT ? /\s*$/.exec(previous)![0] : word;
      if (previous.length > before.length) out[out.length - 1] = previous.slice(0, previous.length - before.length);
      else out.pop();
    }
    // The punctuation right after ("[1]." keeps its full stop), taken from the text that follows.
    const next = pieces[i + 1];
    const after = typeof next === 'string' ? /^[^\s\p{L}\p{N}]*/u.exec(next)![0] : '';
    taken = after.length;
    out.push({ before, citations, after });
  }
  return out;
}
