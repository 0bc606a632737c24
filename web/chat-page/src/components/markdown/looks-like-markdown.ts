// Whether an answer needs the Markdown renderer at all. Most answers are plain sentences, and the
// public page loads the renderer (a third of its JavaScript otherwise) only for one that does not
// look plain. A false "yes" only costs the download; a false "no" would show syntax as typed, so
// anything that might be Markdown counts: emphasis and code marks, headings, quotes, lists, links,
// tables, bare addresses (auto-linked), entities, escapes, HTML-looking text and indented code.
const MARKDOWN_SYNTAX = new RegExp(
  [
    '[*_`~|\\\\<>&]', // emphasis, code, strike-through, tables, escapes, HTML and autolinks, entities
    '\\]\\(', // [text](url) and ![alt](src); [n][m] citation markers stay plain
    '^\\s{0,3}\\[[^\\]]+\\]:', // [ref]: url (which would make [text][ref] a link)
    '^\\s{0,3}#{1,6}(\\s|$)', // # heading
    '^\\s{0,3}([-+]|\\d{1,9}[.)])(\\s|$)', // list items
    '^\\s{0,3}(-{3,}|={3,})\\s*$', // thematic breaks and setext underlines
    '^( {4}|\\t)', // indented code
    '(https?://|www\\.)', // bare addresses
  ].join('|'),
  'm',
);

export function looksLikeMarkdown(text: string): boolean {
  return MARKDOWN_SYNTAX.test(text);
}
