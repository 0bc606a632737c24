// The answer's `[n]` markers as small superscript badges (issue 13). The server renumbers them so
// [1] is the first source; a marker with no source behind it stays plain text, and markers in code
// or inside a link are left alone. A remark plugin, so Markdown structure is never re-parsed by hand.
import type { ChatSource } from './chat-sources';

/** The few mdast fields the plugin reads and writes (react-markdown hands it the full tree). */
interface MarkdownNode {
  type: string;
  value?: string;
  children?: MarkdownNode[];
  data?: Record<string, unknown>;
}

const MARKER = /\[(\d{1,3})\]/g;
/** Nodes whose text is not prose: a badge there would change what the author wrote. */
const SKIPPED = new Set(['link', 'linkReference', 'inlineCode', 'code', 'html']);

export const CITATION_BADGE_CLASS =
  'mx-0.5 inline-block min-w-4 rounded-full bg-brand-50 px-1 text-center align-super text-[10px] leading-4 font-semibold text-brand-700 tabular-nums ring-1 ring-brand-200 ring-inset';

function badge(number: number, source: ChatSource): MarkdownNode {
  return {
    type: 'citation',
    data: {
      hName: 'sup',
      hProperties: { className: CITATION_BADGE_CLASS, title: source.title, dataCitation: String(number) },
      hChildren: [
        { type: 'element', tagName: 'span', properties: { className: 'sr-only' }, children: [{ type: 'text', value: 'source ' }] },
        { type: 'text', value: String(number) },
      ],
    },
  };
}

/** A text's pieces: plain text between badges for the markers that name a source. */
export function splitMarkers(text: string, sources: ChatSource[]): MarkdownNode[] {
  const pieces: MarkdownNode[] = [];
  let last = 0;
  for (const match of text.matchAll(MARKER)) {
    const number = Number(match[1]);
    const source = sources[number - 1];
    if (!source || number < 1) continue;
    if (match.index > last) pieces.push({ type: 'text', value: text.slice(last, match.index) });
    pieces.push(badge(number, source));
    last = match.index + match[0].length;
  }
  if (last === 0) return [{ type: 'text', value: text }];
  if (last < text.length) pieces.push({ type: 'text', value: text.slice(last) });
  return pieces;
}

function visit(node: MarkdownNode, sources: ChatSource[]): void {
  if (!node.children || SKIPPED.has(node.type)) return;
  node.children = node.children.flatMap((child) => {
    if (child.type === 'text' && child.value) return splitMarkers(child.value, sources);
    visit(child, sources);
    return [child];
  });
}

/** The remark plugin for one answer's sources (none: the tree is left as it is). */
export function citationMarkers(sources: ChatSource[]) {
  return () => (tree: MarkdownNode) => {
    if (sources.length > 0) visit(tree, sources);
  };
}
