import { lazy, Suspense, type ReactNode } from 'react';
import { looksLikeMarkdown } from '../markdown/looks-like-markdown';
import type { ChatSource } from './chat-sources';
import { CITATION_BADGE_CLASS, splitMarkers } from './citation-markers';

// The Markdown renderer is the heaviest thing the page could carry, and most answers are plain
// sentences: it is downloaded only once an answer (or the welcome) looks like Markdown, and the
// answer shows as plain text meanwhile.
const MarkdownMessage = lazy(() => import('../markdown/markdown-message').then((m) => ({ default: m.MarkdownMessage })));

/** The text with its `[n]` markers as badges (a marker with no source stays text). */
function withCitations(text: string, sources: ChatSource[]): ReactNode {
  if (sources.length === 0) return text;
  return splitMarkers(text, sources).map((piece, index) =>
    typeof piece === 'string' ? (
      piece
    ) : (
      <sup key={index} className={CITATION_BADGE_CLASS} title={piece.source.title} data-citation={piece.number}>
        <span className="sr-only">source </span>
        {piece.number}
      </sup>
    ),
  );
}

/** Plain text as Markdown would show it: paragraphs at blank lines, single line breaks folded. */
function PlainAnswer({ content, sources }: { content: string; sources: ChatSource[] }) {
  const paragraphs = content
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);
  return paragraphs.map((paragraph, index) => (
    <p key={index} className="my-2 first:mt-0 last:mb-0">
      {withCitations(paragraph, sources)}
    </p>
  ));
}

/** An answer with its `[n]` markers as badges: Markdown (MarkdownMessage keeps its safety rules) when it needs it. */
export function CitedAnswer({ content, sources }: { content: string; sources: ChatSource[] }) {
  if (!looksLikeMarkdown(content)) return <PlainAnswer content={content} sources={sources} />;
  return (
    <Suspense fallback={<PlainAnswer content={content} sources={sources} />}>
      <MarkdownMessage content={content} renderText={sources.length > 0 ? (text) => withCitations(text, sources) : undefined} />
    </Suspense>
  );
}
