// The owner's wait ran out (docs/adr/0034-humans-in-the-loop.md): the delayed job queued when the
// visitor asked (request-handoff.ts) moves waiting → bot, but only for the very request it was
// queued for (the visitor may have been answered, handed back and asked again since). ONE statement
// moves the conversation and stores the system message the visitor reads; then the mirror goes, the
// kept turns are forgotten, and the message and the state (with `timed_out`, so the page asks for
// an email) are published, and on a messaging channel the message is sent there. A job redelivered
// after the move finds nothing to move.
import type { HandoffTimeoutDue } from '@parley/proto/parley/events/v1/handoff_requested_pb.js';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { announceMove, toChannel, type AnnounceDeps } from './announce.ts';
import { CONVERSATION_COLUMNS, type ConversationRow } from './conversation-moves.ts';
import { messageView } from './live-events.ts';
import { isUuid } from '@parley/common/ids.ts';

/** What the visitor reads when nobody answered in time (the chat page shows the email field under it). */
export const TIMEOUT_MESSAGE = 'Nobody is free to answer right now. Leave your email and we will get back to you.';

/** Returns whether the wait ended here (false: the request was answered, handed back or asked again since). */
export async function handoffTimedOut(deps: AnnounceDeps, event: { conversationId: string; requestedAt: Date }): Promise<boolean> {
  // A malformed payload names no conversation: nothing to do, and nothing to retry.
  if (!isUuid(event.conversationId) || Number.isNaN(event.requestedAt.getTime())) return false;
  const [row] = await deps.db.$queryRawUnsafe<(ConversationRow & { messageId: bigint; messageAt: Date })[]>(
    `WITH moved AS (
       UPDATE "Conversation"
          SET "handoffStatus" = 'bot', "assigneeId" = NULL, "assigneeName" = NULL,
              "messageCount" = "messageCount" + 1, "updatedAt" = now()
        WHERE "id" = $1::uuid AND "handoffStatus" = 'waiting' AND "handoffRequestedAt" = $2::timestamptz
       RETURNING ${CONVERSATION_COLUMNS}
     ), message AS (
       INSERT INTO "Message" ("conversationId", "role", "content")
       SELECT moved."id", 'system', $3 FROM moved
       RETURNING "id", "createdAt"
     )
     SELECT moved.*, message."id" AS "messageId", message."createdAt" AS "messageAt" FROM moved, message`,
    event.conversationId.toLowerCase(),
    event.requestedAt.toISOString(),
    TIMEOUT_MESSAGE,
  );
  if (!row) return false;
  const message = messageView({
    id: row.messageId,
    role: 'system',
    content: TIMEOUT_MESSAGE,
    authorName: null,
    createdAt: row.messageAt,
    sources: null,
  });
  await announceMove(deps, row, { timedOut: true, message });
  // A channel's visitor is told on the channel (the message asks for their email there too).
  await toChannel(deps, row, message);
  return true;
}

/** The job's payload as the use case takes it. */
export const timeoutOf = (event: HandoffTimeoutDue) => ({
  conversationId: event.conversationId,
  requestedAt: event.requestedAt ? timestampDate(event.requestedAt) : new Date(Number.NaN),
});
