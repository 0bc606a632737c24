// The workspace's live inbox (Pro only): the conversations waiting for a person (longest first) and
// those an agent has (most recent first), one conversation with every message (internal notes
// included), the waiting count for the dashboard's badge, and the inbox live: each row as it
// changes, from whichever replica changed it (the workspace's channel, live-hub.ts).
import { redisKeys } from '@parley/common/redis-keys.ts';
import type { Lead } from '../generated/prisma/client.ts';
import { notFound } from '@parley/common/rpc-errors.ts';
import { CONVERSATION_NOT_FOUND, assertInboxAccess, isPro, parseConversationId, parseOwnerId, type HandoffDeps } from './handoff-deps.ts';
import {
  INBOX_COLUMNS,
  INBOX_JOINS,
  inboxItem,
  loadInboxRow,
  messageView,
  parseInboxItem,
  type InboxItemView,
  type InboxRow,
  type MessageRow,
  type MessageView,
} from './live-events.ts';
import { queuedListener } from './live-hub.ts';
import { parseReasonFilter } from '../core/reasons.ts';

/** Rows of each list at most: an inbox longer than this is worked from the top. */
export const INBOX_LIST_MAX = 200;

export interface Inbox {
  waiting: InboxItemView[];
  open: InboxItemView[];
}

/** The inbox's two lists; `reason` (a reason code, core/reasons.ts) keeps the conversations of that reason only. */
export async function listInbox(deps: HandoffDeps, raw: { ownerId: string; reason?: string }): Promise<Inbox> {
  const reason = parseReasonFilter(raw.reason);
  const ownerId = await assertInboxAccess(deps, raw.ownerId);
  const list = (status: 'waiting' | 'human', order: string) =>
    deps.db.$queryRawUnsafe<InboxRow[]>(
      `SELECT ${INBOX_COLUMNS} FROM "Conversation" AS c ${INBOX_JOINS}
        WHERE c."ownerId" = $1 AND c."handoffStatus" = '${status}' AND ($2::text IS NULL OR c."handoffReason" = $2::text)
        ORDER BY ${order} LIMIT ${INBOX_LIST_MAX}`,
      ownerId,
      reason,
    );
  const [waiting, open] = await Promise.all([
    list('waiting', 'c."handoffRequestedAt" ASC NULLS LAST, c."id"'),
    list('human', 'COALESCE(last."createdAt", c."updatedAt") DESC, c."id"'),
  ]);
  return { waiting: waiting.map(inboxItem), open: open.map(inboxItem) };
}

/** Waiting conversations of the workspace; 0 when it is not on Pro (the badge shows nothing). */
export async function countWaiting(deps: HandoffDeps, raw: { ownerId: string }): Promise<number> {
  const ownerId = parseOwnerId(raw.ownerId);
  if (!(await isPro(deps, ownerId))) return 0;
  const [row] = await deps.db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS "n" FROM "Conversation" WHERE "ownerId" = ${ownerId} AND "handoffStatus" = 'waiting'`;
  return row?.n ?? 0;
}

export interface InboxConversation {
  item: InboxItemView;
  row: InboxRow;
  /** With each message's stored usage, so the owner sees which model gave an answer (conversations/answered-by.ts). */
  messages: (MessageView & { usage: unknown })[];
  summary: string;
  createdAt: Date;
  updatedAt: Date;
  userIp: string | null;
  userAgent: string | null;
  visitorId: string | null;
  /** The lead the visitor left in this conversation, if any. */
  lead: Lead | null;
}

export async function getInboxConversation(
  deps: HandoffDeps,
  raw: { ownerId: string; conversationId: string },
): Promise<InboxConversation> {
  const conversationId = parseConversationId(raw.conversationId);
  const ownerId = await assertInboxAccess(deps, raw.ownerId);
  const row = await loadInboxRow(deps.db, conversationId, ownerId);
  if (!row) throw notFound(CONVERSATION_NOT_FOUND);
  const [details, messages, lead] = await Promise.all([
    deps.db.conversation.findUniqueOrThrow({
      where: { id: conversationId },
      select: { summary: true, createdAt: true, updatedAt: true, userIp: true, userAgent: true, visitorId: true },
    }),
    deps.db.$queryRaw<(MessageRow & { usage: unknown })[]>`
      SELECT "id", "role"::text AS "role", "content", "authorName", "createdAt", "sources", "usage" FROM "Message"
       WHERE "conversationId" = ${conversationId}::uuid ORDER BY "id"`,
    deps.db.lead.findUnique({ where: { conversationId } }),
  ]);
  return {
    item: inboxItem(row),
    row,
    messages: messages.map((m) => ({ ...messageView(m), usage: m.usage })),
    summary: details.summary ?? '',
    createdAt: details.createdAt,
    updatedAt: details.updatedAt,
    userIp: details.userIp,
    userAgent: details.userAgent,
    visitorId: details.visitorId,
    lead,
  };
}

/** The workspace's inbox rows as they change, until the client goes (`signal`) or the service stops. */
export async function* watchInbox(deps: HandoffDeps, raw: { ownerId: string }, signal?: AbortSignal): AsyncGenerator<InboxItemView> {
  const ownerId = await assertInboxAccess(deps, raw.ownerId);
  const queue = queuedListener(signal);
  const stop = await deps.hub.listen(redisKeys(deps.prefix).inboxChannel(ownerId), queue.listener);
  try {
    for await (const message of queue.messages()) {
      const item = parseInboxItem(message);
      if (item) yield item;
    }
  } finally {
    await stop();
  }
}
