// An entry's title: the first words of its content, so the owner can tell entries apart.

const MAX_WORDS = 8;
const MAX_CHARS = 60;
const ELLIPSIS = '…';

export function entryTitle(content: string): string {
  const words = content.trim().split(/\s+/).filter(Boolean);
  let title = words.slice(0, MAX_WORDS).join(' ');
  let cut = words.length > MAX_WORDS;
  const chars = [...title];
  if (chars.length > MAX_CHARS) {
    title = chars.slice(0, MAX_CHARS).join('');
    // Prefer ending at a word boundary when there is one in the second half.
    const space = title.lastIndexOf(' ');
    if (space > MAX_CHARS / 2) title = title.slice(0, space);
    cut = true;
  }
  return cut ? `${title.replace(/[\s.,;:!?。，、；：]+$/u, '')}${ELLIPSIS}` : title;
}
