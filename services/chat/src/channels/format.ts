// An answer as a messaging channel shows it (docs/adr/0044-messaging-channels.md): the text the
// turn produced (its [n] markers already taken out, the `links` answer form), then its cited
// sources as a footer of links, split into messages of at most the channel's size limit.
import type { Source } from '../public-chat/citations.ts';

export const SOURCES_HEADING = 'Sources:';

/** The text, then "Sources:" and one line per cited source (its title, and its address when it has one). */
export function withSourcesFooter(text: string, sources: readonly Source[]): string {
  if (sources.length === 0) return text;
  const lines = sources.map((s, i) => `${i + 1}. ${s.title || 'Source'}${s.url ? ` ${s.url}` : ''}`);
  return `${text}\n\n${SOURCES_HEADING}\n${lines.join('\n')}`;
}

/**
 * The text in parts of at most `limit` characters (code points), each cut at the last paragraph
 * break, line break or space within the limit when there is one, else at the limit.
 */
export function splitMessage(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = [...text];
  while (rest.length > limit) {
    const window = rest.slice(0, limit).join('');
    let cut = window.lastIndexOf('\n\n');
    if (cut < limit / 2) cut = window.lastIndexOf('\n');
    if (cut < limit / 2) cut = window.lastIndexOf(' ');
    const at = cut < limit / 2 ? limit : [...window.slice(0, cut)].length;
    const part = rest.slice(0, at).join('').trimEnd();
    if (part) parts.push(part);
    rest = rest.slice(at);
    while (rest.length && /\s/.test(rest[0])) rest = rest.slice(1);
  }
  const last = rest.join('').trim();
  if (last) parts.push(last);
  return parts;
}
