import { MarkdownMessage } from '../../../components/markdown/markdown-message';
import type { ChatSource } from '../chat-sources';
import { citationMarkers } from '../citation-markers';

/** An answer as Markdown (MarkdownMessage keeps its safety rules) with its `[n]` markers as badges. */
export function CitedAnswer({ content, sources }: { content: string; sources: ChatSource[] }) {
  return <MarkdownMessage content={content} remarkPlugins={sources.length > 0 ? [citationMarkers(sources)] : undefined} />;
}
