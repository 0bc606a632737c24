import { lazy, Suspense, type ReactNode } from 'react';
import { looksLikeMarkdown } from '../markdown/looks-like-markdown';
import type { ChatSource } from './chat-sources';
import { CITATION_BADGE_CLASS, citationRuns, splitMarkers, type Citation } from './citation-markers';

// The Markdown renderer is the heaviest thing the page could carry, and most answers are plain
// sentences: it is downloaded only once an answer (or the welcome) looks like Markdown, and the
// answer shows as plain text meanwhile.
const MarkdownMessage = lazy(() => import('../markdown/markdown-message').then((m) => ({ default: m.MarkdownMessage })));

/** A marker as its badge: the source's number, titled by the source. */
function CitationBadge({ citation }: { citation: Citation }) {
  return (
    <sup className={CITATION_BADGE_CLASS} title={citation.source.title} data-citation={citation.number}>
      <span className="sr-only">source </span>
      {citation.number}
    </sup>
  );
}

/** The text with its `[n]` markers as badges (a marker with no source stays text), each on the line of the word it follows. */
function withCitations(text: string, sources: ChatSource[]): ReactNode {
  if (sources.length === 0) return text;
  return citationRuns(splitMarkers(text, sources)).map((piece, index) =>
    typeof piece === 'string' ? (
      piece
    ) : (
      <span key={index} className="whitespace-nowrap">
        {piece.before}
        {piece.citations.map((citation, n) => (
          <CitationBadge key={n} citation={citation} />
        ))}
        {piece.after}
      </span>
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
