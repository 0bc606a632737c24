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
