// One visitor conversation, live (WatchConversation): the stream subscribes to the conversation's
// channel FIRST, then reads what it must catch up on (the state, then every visible message after
// the client's last id), then relays what is published, dropping any message it already sent. So
// nothing stored after the subscription can be missed, whichever replica stored it, and a visitor
// reconnecting after a replica died gets every message they missed. Notes never leave the inbox.
import { redisKeys } from '@parley/common/redis-keys.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { handoffView } from '../core/handoff.ts';
import { loadConversation } from './conversation-moves.ts';
import type { HandoffDeps } from './handoff-deps.ts';
import { messageView, parseLiveEvent, VISIBLE_ROLES, type LiveEvent, type MessageRow } from './live-events.ts';
import { queuedListener } from './live-hub.ts';
import { visitorConversation, type RawHandoffRequest } from './request-handoff.ts';

export const AFTER_MESSAGE_ID_INVALID = 'after_message_id must be a message id';
/** A message id is a positive bigint (Message.id). */
const MESSAGE_ID = /^[1-9][0-9]{0,18}$/;
/** Messages caught up on at most (the newest); a conversation is rarely longer. */
export const CATCH_UP_MAX = 500;

export interface RawWatchConversation extends Omit<RawHandoffRequest, 'clientIp'> {
  afterMessageId: string;
}

/** The last message id the client has: '' (none) or a message id. */
export function parseAfterMessageId(raw: string): bigint {
  const id = raw.trim();
  if (!id) return 0n;
  if (!MESSAGE_ID.test(id) || BigInt(id) > 2n ** 63n - 1n) throw invalid(AFTER_MESSAGE_ID_INVALID);
  return BigInt(id);
}

export async function* watchConversation(deps: HandoffDeps, raw: RawWatchConversation, signal?: AbortSignal): AsyncGenerator<LiveEvent> {
  const after = parseAfterMessageId(raw.afterMessageId);
  // Not counted against the rate limits: the request names no visitor address (all would share one
  // allowance), and only the holder of the conversation's session id gets this far.
  const { conversation } = await visitorConversation(deps, { ...raw, clientIp: '' }, { count: false });
  const queue = queuedListener(signal);
  const stop = await deps.hub.listen(redisKeys(deps.prefix).conversationChannel(conversation.id), queue.listener);
  try {
    // What was published before the catch-up read is in that read (stored first, then published):
    // a state among it is older than the one read, so it is not relayed.
    const publishedBefore = queue.queued;
    const [current, rows] = await Promise.all([
      loadConversation(deps.db, { conversationId: conversation.id }),
      deps.db.$queryRawUnsafe<MessageRow[]>(
        `SELECT * FROM (
           SELECT "id", "role"::text AS "role", "content", "authorName", "createdAt", "sources" FROM "Message"
            WHERE "conversationId" = $1::uuid AND "id" > $2::bigint AND "role"::text = ANY($3::text[])
            ORDER BY "id" DESC LIMIT ${CATCH_UP_MAX}
         ) AS recent ORDER BY "id"`,
        conversation.id,
        after.toString(),
        [...VISIBLE_ROLES],
      ),
    ]);
    if (!current) return;
    yield { kind: 'state', state: handoffView(current) };
    const sent = new Set<string>();
    for (const row of rows) {
      const message = messageView(row);
      sent.add(message.id);
      yield { kind: 'message', message };
    }
    let skipped = 0;
    for await (const raw of queue.messages()) {
      const event = parseLiveEvent(raw);
      const early = skipped++ < publishedBefore;
      if (!event) continue;
      if (event.kind === 'state') {
        if (!early) yield event;
        continue;
      }
      if (event.message.role === 'note' || sent.has(event.message.id) || BigInt(event.message.id) <= after) continue;
      sent.add(event.message.id);
      yield event;
    }
  } finally {
    await stop();
  }
}
