// A visitor's conversation, live (docs/adr/0034-humans-in-the-loop.md): the chat service's
// WatchConversation relayed as server-sent events to the chat page while a person is asked for or
// answering. `message` events carry the message id as the SSE id, so a browser that reconnects
// sends it back as Last-Event-ID and the chat service replays only what came after; `state` events
// carry the handoff state. A `: ping` comment every 15 s keeps proxies from closing an idle stream.
// The stream has no deadline: it ends when the visitor goes (which cancels the chat service's
// stream, and with it its pub/sub listener) or when the chat service ends it (a replica draining),
// after which the page reconnects. A gateway shutting down ends its open streams at once (the pages
// reconnect to another replica) instead of waiting for visitors to leave.
import type { Response } from 'express';
import type { Logger } from '@parley/common/logger.ts';
import { gauge } from '@parley/common/metrics.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { ChatMessage, HandoffState, WatchConversationResponse } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { isoDate } from '../../http/dates.ts';
import { answerSources, type AnswerSourceView } from '../conversations/conversations.ts';
import { mapError } from '../../http/errors.ts';
import { sendEvent, startEventStream } from '../../http/answer-stream.ts';
import type { OpenStreams } from '../../http/open-streams.ts';

/** How often an open stream sends a comment line, so nothing between closes it as idle. */
export const PING_INTERVAL_MS = 15_000;

export const SESSION_ID_REQUIRED = 'sessionId is required';
export const AFTER_INVALID = 'after must be a message id';

/** Conversation streams this gateway relays right now (each one an open SSE response and chat stream). */
export const openConversationStreams = gauge(
  'parley_gateway_sse_conversations_open',
  'Visitor conversation streams this gateway relays now (open SSE responses, each with a chat service stream).',
  [],
);

/** The handoff state as the page reads it (the chat answer's `handoff`, the handoff call, `state` events). */
export interface HandoffView {
  status: string;
  /** The agent answering (human); null otherwise. */
  agentName: string | null;
  /** When the visitor asked for a person (waiting, human); null otherwise. */
  waitingSince: string | null;
}

export function handoffView(state: HandoffState | undefined): HandoffView {
  return {
    status: state?.status || 'bot',
    agentName: state?.agentName || null,
    waitingSince: isoDate(state?.waitingSince) ?? null,
  };
}

/** A message the visitor may see, as the `message` event carries it. */
export interface StreamMessageView {
  id: string;
  role: string;
  content: string;
  /** The agent who wrote it (agent replies); null otherwise. */
  authorName: string | null;
  createdAt: string | null;
  sources: AnswerSourceView[];
}

export function streamMessageView(m: ChatMessage): StreamMessageView {
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    authorName: m.authorName || null,
    createdAt: isoDate(m.timestamp) ?? null,
    sources: answerSources(m.sources),
  };
}

/** Message ids are a Postgres sequence: decimal digits. */
const MESSAGE_ID = /^[0-9]{1,19}$/;

/**
 * The message the client already has: the Last-Event-ID header (a reconnecting EventSource) over the
 * `after` parameter; "" for none. Anything else than one message id is refused.
 */
export function afterMessageId(query: unknown, lastEventId: string | undefined): string {
  const raw = lastEventId !== undefined && lastEventId.trim() !== '' ? lastEventId.trim() : query;
  if (raw === undefined || raw === '') return '';
  if (typeof raw !== 'string' || !MESSAGE_ID.test(raw)) throw invalid(AFTER_INVALID);
  return raw;
}

/** The `sessionId` query parameter: one non-empty value. */
export function sessionIdParam(query: unknown): string {
  if (query === undefined || query === '') throw invalid(SESSION_ID_REQUIRED);
  if (typeof query !== 'string') throw invalid('sessionId must be a string');
  return query;
}

/**
 * Relays the call's events to the client. A refusal (unknown chatbot or session, the site rule)
 * comes before the first event and is thrown, to be answered as JSON with its status; a failure
 * later ends the stream, and the page reconnects from the last id it has.
 */
export async function relayConversation(
  res: Response,
  call: AsyncIterable<WatchConversationResponse>,
  opts: { signal: AbortSignal; logger: Logger; pingMs?: number; streams?: OpenStreams },
): Promise<void> {
  const stream = call[Symbol.asyncIterator]();
  const first = await stream.next();
  startEventStream(res);
  openConversationStreams.inc();
  opts.streams?.add(res);
  // Nothing is written once the response has ended (a gateway stopping ends it before the call stops).
  const ping = setInterval(() => {
    if (!res.writableEnded) res.write(': ping\n\n');
  }, opts.pingMs ?? PING_INTERVAL_MS);
  res.once('close', () => {
    clearInterval(ping);
    openConversationStreams.dec();
  });
  try {
    for (let step = first; !step.done && !res.writableEnded; step = await stream.next()) {
      const { event } = step.value;
      if (event.case === 'message') {
        res.write(`id: ${event.value.id}\n`);
        sendEvent(res, 'message', streamMessageView(event.value));
      } else if (event.case === 'state') {
        sendEvent(res, 'state', { ...handoffView(event.value), timedOut: event.value.timedOut });
      }
    }
  } catch (err) {
    // The visitor left (the signal cancelled the call): nothing to report to anyone.
    if (!opts.signal.aborted) mapError(err, opts.logger);
  }
  res.end();
}
