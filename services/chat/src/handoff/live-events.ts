// What the live channels carry (live-hub.ts), as JSON: on a conversation's channel its visible
// messages and handoff state changes, on a workspace's inbox channel the conversation's row as it
// now stands. Also how those are read from the store (one statement each), for the catch-up reads
// and after each move.
import type { Source } from '../public-chat/citations.ts';
import { readStoredSources } from '../public-chat/message-sources.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { handoffView, type HandoffStatus, type HandoffView } from '../core/handoff.ts';

/** Roles the visitor sees; notes never leave the inbox. */
export const VISIBLE_ROLES = ['user', 'assistant', 'system', 'agent'] as const;
export type MessageRoleName = (typeof VISIBLE_ROLES)[number] | 'note';

/** One stored message as the streams and the inbox show it. */
export interface MessageView {
  id: string;
  role: MessageRoleName;
  content: string;
  authorName: string;
  createdAt: Date;
  sources: Source[];
}

export type LiveEvent = { kind: 'message'; message: MessageView } | { kind: 'state'; state: HandoffView };

/** One row of the inbox (proto InboxItem). */
export interface InboxItemView {
  conversationId: string;
  chatbotId: string;
  state: HandoffView;
  assigneeId: string;
  /** The lead's name and email when the visitor left one in this conversation, else what the host page told. */
  visitorName: string;
  visitorEmail: string;
  /** The newest message the visitor may see, at most 200 characters; '' when none. */
  lastMessage: string;
  lastMessageAt: Date | null;
  messageCount: number;
  /** The visitor's own newest message, at most 200 characters; '' when none (the rows preview it). */
  lastVisitorMessage: string;
  /** The verified visitor's user id (public-chat/visitor-identity.ts); '' when unverified. */
  verifiedUserId: string;
  /** The messaging channel it came from (telegram); '' for the web. */
  channel: string;
  /** Why the visitor asked for a person (core/reasons.ts); '' for a request made before reasons were kept. */
  reason: string;
}

export const LAST_MESSAGE_CHARS = 200;

export const excerpt = (text: string) => (text.length > LAST_MESSAGE_CHARS ? `${text.slice(0, LAST_MESSAGE_CHARS - 1)}…` : text);

/** A live event parsed back from its channel (dates revived); null for anything else. */
export function parseLiveEvent(raw: string): LiveEvent | null {
  try {
    const e = JSON.parse(raw) as LiveEvent;
    if (e.kind === 'message' && e.message && typeof e.message.id === 'string') {
      return { kind: 'message', message: { ...e.message, createdAt: new Date(e.message.createdAt) } };
    }
    if (e.kind === 'state' && e.state && typeof e.state.status === 'string') {
      return { kind: 'state', state: reviveState(e.state) };
    }
  } catch {
    // not one of ours
  }
  return null;
}

const reviveState = (s: HandoffView): HandoffView => ({ ...s, waitingSince: s.waitingSince ? new Date(s.waitingSince) : null });

/** An inbox row parsed back from its channel; null for anything else. */
export function parseInboxItem(raw: string): InboxItemView | null {
  try {
    const item = JSON.parse(raw) as InboxItemView;
    if (typeof item.conversationId !== 'string' || !item.state) return null;
    return {
      ...item,
      state: reviveState(item.state),
      lastMessageAt: item.lastMessageAt ? new Date(item.lastMessageAt) : null,
      // A row published by a replica from before the field: no preview rather than the bot's answer.
      lastVisitorMessage: typeof item.lastVisitorMessage === 'string' ? item.lastVisitorMessage : '',
      channel: typeof item.channel === 'string' ? item.channel : '',
      reason: typeof item.reason === 'string' ? item.reason : '',
    };
  } catch {
    return null;
  }
}

export interface MessageRow {
  id: bigint | string;
  role: string;
  content: string;
  authorName: string | null;
  createdAt: Date;
  sources: unknown;
}

export const messageView = (m: MessageRow): MessageView => ({
  id: m.id.toString(),
  role: m.role as MessageRoleName,
  content: m.content,
  authorName: m.authorName ?? '',
  createdAt: m.createdAt,
  sources: readStoredSources(m.sources),
});

/** The columns of a conversation an inbox row is made of. */
export interface InboxRow {
  id: string;
  chatbotId: string;
  ownerId: string;
  sessionId: string;
  handoffStatus: HandoffStatus;
  handoffRequestedAt: Date | null;
  assigneeId: string | null;
  assigneeName: string | null;
  visitorName: string | null;
  visitorEmail: string | null;
  messageCount: number;
  lastMessage: string | null;
  lastMessageAt: Date | null;
  lastVisitorMessage: string | null;
  verifiedUserId?: string | null;
  verifiedEmail?: string | null;
  channel?: string | null;
  /** Why the visitor last asked for a person; null when never (or before reasons were kept). */
  handoffReason?: string | null;
  /** The conversation's lead, when the statement read it (INBOX_JOINS); absent or null otherwise. */
  leadName?: string | null;
  leadEmail?: string | null;
}

export const inboxItem = (row: InboxRow): InboxItemView => ({
  conversationId: row.id,
  chatbotId: row.chatbotId,
  state: handoffView(row),
  assigneeId: row.handoffStatus === 'human' ? (row.assigneeId ?? '') : '',
  // What the visitor typed into this conversation's lead form names them before what the host page told.
  visitorName: row.leadName || row.visitorName || '',
  visitorEmail: row.leadEmail || row.visitorEmail || '',
  lastMessage: excerpt(row.lastMessage ?? ''),
  lastMessageAt: row.lastMessageAt,
  messageCount: row.messageCount,
  lastVisitorMessage: excerpt(row.lastVisitorMessage ?? ''),
  verifiedUserId: row.verifiedUserId ?? '',
  channel: row.channel ?? '',
  reason: row.handoffReason ?? '',
});

/** The select list of an inbox row over "Conversation" AS c and INBOX_JOINS. */
export const INBOX_COLUMNS = `
  c."id", c."chatbotId", c."ownerId", c."sessionId", c."handoffStatus"::text AS "handoffStatus", c."handoffRequestedAt",
  c."assigneeId", c."assigneeName", c."visitorName", c."visitorEmail", c."messageCount",
  c."verifiedUserId", c."verifiedEmail", c."channel", c."handoffReason",
  last."content" AS "lastMessage", last."createdAt" AS "lastMessageAt", said."content" AS "lastVisitorMessage",
  lead."name" AS "leadName", lead."email" AS "leadEmail"`;

/** Beside each conversation: its newest visible message, the visitor's own newest one, and its lead (one at most). */
export const INBOX_JOINS = `
  LEFT JOIN LATERAL (
    SELECT m."content", m."createdAt" FROM "Message" AS m
     WHERE m."conversationId" = c."id" AND m."role" <> 'note'
     ORDER BY m."id" DESC LIMIT 1
  ) AS last ON true
  LEFT JOIN LATERAL (
    SELECT m."content" FROM "Message" AS m
     WHERE m."conversationId" = c."id" AND m."role" = 'user'
     ORDER BY m."id" DESC LIMIT 1
  ) AS said ON true
  LEFT JOIN "Lead" AS lead ON lead."conversationId" = c."id"`;

/** A lead's name and email as columns of a statement over "Conversation" AS c (one row per conversation at most). */
export const LEAD_COLUMNS = `
  (SELECT l."name" FROM "Lead" AS l WHERE l."conversationId" = c."id") AS "leadName",
  (SELECT l."email" FROM "Lead" AS l WHERE l."conversationId" = c."id") AS "leadEmail"`;

/** One conversation's inbox row, when it is the owner's. */
export async function loadInboxRow(db: PrismaClient, conversationId: string, ownerId: string): Promise<InboxRow | null> {
  const rows = await db.$queryRawUnsafe<InboxRow[]>(
    `SELECT ${INBOX_COLUMNS} FROM "Conversation" AS c ${INBOX_JOINS}
      WHERE c."id" = $1::uuid AND c."ownerId" = $2`,
    conversationId,
    ownerId,
  );
  return rows[0] ?? null;
}
