// The one shape text from a file or web page takes before it becomes knowledge: newlines unified,
// control characters gone, runs of spaces collapsed, lines trimmed, at most one blank line in a
// row. A PDF's pages are normalised one by one and joined with a blank line: the same result.
import { withoutControlCharacters } from '@parley/common/control-characters.ts';

// Vertical tab, form feed, NEL and the Unicode separators end lines too.
const NEWLINES = /\r\n?|[\v\f\u0085\u2028\u2029]/g;
// The zero-width characters some editors leave behind; control characters follow the kit's one rule.
const ZERO_WIDTH = /[\u200b\u2060\ufeff]/g;
const SPACES = /[ \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g;

export function normalizeText(raw: string): string {
  const lines = withoutControlCharacters(raw.replace(NEWLINES, '\n'), 'multi-line')
    .replace(ZERO_WIDTH, '')
    .replace(SPACES, ' ')
    .split('\n');
  return lines
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Characters as owners count them (code points), as `charCount` in add-text-entry.ts does. */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** A title on one line, at most `max` characters, or '' when nothing is left. */
export function oneLineTitle(raw: string, max = 200): string {
  const title = normalizeText(raw).replace(/\s+/g, ' ');
  return codePoints(title) <= max ? title : [...title].slice(0, max).join('').trimEnd() + '…';
}
