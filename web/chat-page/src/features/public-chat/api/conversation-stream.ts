// The conversation's live stream (GET /api/chatbot/public/{uniqueId}/events), read with fetch so
// the embed page can mark the call. Loaded on its own (import()) when a person is involved.
import { headersFor, isRecord, path, readHandoffState, StreamRefused, type HandoffState, type StreamedMessage } from './handoff-api';
import { readEventStream } from '../../../lib/read-event-stream';

function readStreamedMessage(value: unknown, id: string | undefined): StreamedMessage | null {
  if (!isRecord(value) || typeof value.content !== 'string') return null;
  const role = value.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'agent' && role !== 'system') return null;
  const messageId = typeof value.id === 'string' && value.id ? value.id : id;
  if (!messageId) return null;
  const authorName = typeof value.authorName === 'string' && value.authorName.trim() ? value.authorName.trim() : null;
  return { id: messageId, role, content: value.content, authorName };
}

export interface ConversationEvents {
  onMessage: (message: StreamedMessage) => void;
  /** `timedOut`: the wait ended with nobody answering. */
  onState: (state: HandoffState, timedOut: boolean) => void;
}

/**
 * GET /api/chatbot/public/{uniqueId}/events: reads the conversation's stream until it ends (the
 * server closed it, or `signal` aborted): the state first, then every message after `after`, then
 * each new message and change. Resolves when the stream ends cleanly; rejects when it could not be opened or
 * broke (`retry`: whether trying again may help, false for a refusal such as an unknown session).
 */
export async function watchConversation(
  input: { uniqueId: string; sessionId: string; after: string | null; embedded?: boolean; signal: AbortSignal },
  events: ConversationEvents,
): Promise<void> {
  const query = new URLSearchParams({ sessionId: input.sessionId, ...(input.after ? { after: input.after } : {}) });
  const response = await fetch(`${path(input.uniqueId, 'events')}?${query.toString()}`, {
    headers: headersFor(input.embedded, { accept: 'text/event-stream' }),
    signal: input.signal,
  });
  if (!response.ok || !response.body) throw new StreamRefused(response.status);
  for await (const { event, data, id } of readEventStream(response.body)) {
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      continue;
    }
    if (event === 'message') {
      const message = readStreamedMessage(payload, id);
      if (message) events.onMessage(message);
    } else if (event === 'state') {
      const state = readHandoffState(payload);
      if (state) events.onState(state, isRecord(payload) && payload.timedOut === true);
    }
  }
}
