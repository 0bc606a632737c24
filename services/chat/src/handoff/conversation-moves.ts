// The moves of a conversation's handoff status (core/handoff.ts, the ADR's table), each ONE
// conditional UPDATE in PostgreSQL, the truth: the row moves only from a status the move starts
// from, so of two concurrent moves the second finds the row moved and changes nothing. After a move
// commits its caller mirrors it in Redis (mirror.ts) and publishes it (live-hub.ts).
import type { PrismaClient } from '../generated/prisma/client.ts';
import { HANDOFF_MOVES, type HandoffMove, type HandoffStatus } from '../core/handoff.ts';

/** A conversation's own columns the handoff reads. */
export interface ConversationRow {
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
  /** The messaging channel it came from (telegram); null for the web. */
  channel: string | null;
}

export const CONVERSATION_COLUMNS = `"id", "chatbotId", "ownerId", "sessionId", "handoffStatus"::text AS "handoffStatus", "handoffRequestedAt",
  "assigneeId", "assigneeName", "visitorName", "visitorEmail", "messageCount", "channel"`;

/** Which conversation: by id within a workspace (an agent's), or by id alone (the visitor's, already resolved). */
export interface ConversationRef {
  conversationId: string;
  /** The workspace the conversation must belong to; absent: any (the visitor's and the timeout's own conversation). */
  ownerId?: string;
}

export type MoveParams =
  | { move: 'request'; requestedAt: Date }
  | { move: 'claim'; agent: { id: string; name: string } }
  | { move: 'handBack' | 'close' }
  /** Only the request this deadline was set for: the visitor may have asked again since. */
  | { move: 'timeout'; requestedAt: Date };

/** Moves the conversation when its status allows; the row as it now is, or null when it did not move (or is not there). */
export async function moveConversation(db: PrismaClient, ref: ConversationRef, params: MoveParams): Promise<ConversationRow | null> {
  const { from, to } = HANDOFF_MOVES[params.move satisfies HandoffMove];
  const values: unknown[] = [ref.conversationId, [...from], to];
  const set: string[] = [];
  const where: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  switch (params.move) {
    case 'request':
      set.push(`"handoffRequestedAt" = ${param(params.requestedAt)}::timestamptz`, `"assigneeId" = NULL`, `"assigneeName" = NULL`);
      break;
    case 'claim':
      set.push(`"assigneeId" = ${param(params.agent.id)}`, `"assigneeName" = ${param(params.agent.name)}`);
      break;
    case 'timeout':
      where.push(`"handoffRequestedAt" = ${param(params.requestedAt)}::timestamptz`);
      set.push(`"assigneeId" = NULL`, `"assigneeName" = NULL`);
      break;
    default:
      set.push(`"assigneeId" = NULL`, `"assigneeName" = NULL`);
  }
  if (ref.ownerId !== undefined) where.push(`"ownerId" = ${param(ref.ownerId)}`);
  const rows = await db.$queryRawUnsafe<ConversationRow[]>(
    `UPDATE "Conversation" SET "handoffStatus" = $3::"HandoffStatus", ${set.join(', ')}
      WHERE "id" = $1::uuid AND "handoffStatus"::text = ANY($2::text[]) ${where.map((w) => `AND ${w}`).join(' ')}
      RETURNING ${CONVERSATION_COLUMNS}`,
    ...values,
  );
  return rows[0] ?? null;
}

/** The conversation as it is (for a move that did not happen: already there, or not allowed). */
export async function loadConversation(db: PrismaClient, ref: ConversationRef): Promise<ConversationRow | null> {
  const rows =
    ref.ownerId === undefined
      ? await db.$queryRawUnsafe<ConversationRow[]>(
          `SELECT ${CONVERSATION_COLUMNS} FROM "Conversation" WHERE "id" = $1::uuid`,
          ref.conversationId,
        )
      : await db.$queryRawUnsafe<ConversationRow[]>(
          `SELECT ${CONVERSATION_COLUMNS} FROM "Conversation" WHERE "id" = $1::uuid AND "ownerId" = $2`,
          ref.conversationId,
          ref.ownerId,
        );
  return rows[0] ?? null;
}

/** The visitor's conversation with a chatbot, by the session id the service issued. */
export async function findVisitorConversation(db: PrismaClient, chatbotId: string, sessionId: string): Promise<ConversationRow | null> {
  const rows = await db.$queryRawUnsafe<ConversationRow[]>(
    `SELECT ${CONVERSATION_COLUMNS} FROM "Conversation" WHERE "chatbotId" = $1::uuid AND "sessionId" = $2`,
    chatbotId,
    sessionId,
  );
  return rows[0] ?? null;
}
