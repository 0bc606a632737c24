import { useEffect, useRef } from 'react';
import type { KnowledgeBaseFieldsFragment } from '../../../gql/graphql';

/** How often the detail page asks again while a file or page is being read. */
export const KNOWLEDGE_POLL_MS = 1500;

export function hasProcessingEntries(knowledgeBase: KnowledgeBaseFieldsFragment | undefined): boolean {
  return knowledgeBase?.textEntries.some((entry) => entry.status === 'processing') ?? false;
}

/**
 * Polls the chatbot while any entry is processing, so statuses change from Processing to Ready or
 * Failed without a reload; stops once none is.
 */
export function useKnowledgePolling(
  knowledgeBase: KnowledgeBaseFieldsFragment | undefined,
  startPolling: (intervalMs: number) => void,
  stopPolling: () => void,
) {
  const processing = hasProcessingEntries(knowledgeBase);
  // The latest functions, so only a change of `processing` starts or stops the timer.
  const polling = useRef({ startPolling, stopPolling });
  polling.current = { startPolling, stopPolling };
  useEffect(() => {
    if (!processing) return;
    polling.current.startPolling(KNOWLEDGE_POLL_MS);
    return () => polling.current.stopPolling();
  }, [processing]);
}
