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
  /** Why the visitor last asked for a person (core/reasons.ts); null when never. */
  handoffReason?: string | null;
}

export const CONVERSATION_COLUMNS = `"id", "chatbotId", "ownerId", "sessionId", "handoffStatus"::text AS "handoffStatus", "handoffRequestedAt",
  "assigneeId", "assigneeName", "visitorName", "visitorEmail", "messageCount", "channel", "handoffReason"`;

/** Which conversation: by id within a workspace (an agent's), or by id alone (the visitor's, already resolved). */
export interface ConversationRef {
  conversationId: string;
  /** The workspace the conversation must belong to; absent: any (the visitor's and the timeout's own conversation). */
  ownerId?: string;
}

export type MoveParams =
  /**
   * `limitStoppedAt`: when a visitor, spend or credit limit last stopped this conversation's message
   * (VisitorHandoff.limitStopped), null when none did. The reason is decided in the same UPDATE.
   */
  | { move: 'request'; requestedAt: Date; limitStoppedAt?: Date | null }
  | { move: 'claim'; agent: { id: string; name: string } }
  | { move: 'handBack' | 'close' }
  /** Only the request this deadline was set for: the visitor may have asked again since. */
  | { move: 'timeout'; requestedAt: Date };

/**
 * Why the visitor asks for a person (docs/adr/0065-reason-codes.md), decided from what the
 * conversation holds: a limit that stopped their message after the newest answer is limit_reached;
 * else the newest visible message's reason when it is the bot's answer that could not help (the
 * button offered under it); else (the button asked on its own, after an answer that helped) asked_for_person.
 */
const HANDOFF_REASON = (limitStoppedAt: string) => `COALESCE(
    CASE WHEN ${limitStoppedAt}::timestamptz > COALESCE(
      (SELECT max(m."createdAt") FROM "Message" AS m WHERE m."conversationId" = "Conversation"."id" AND m."role" = 'assistant'),
      '-infinity'::timestamptz) THEN 'limit_reached' END,
    (SELECT m."reason" FROM "Message" AS m WHERE m."conversationId" = "Conversation"."id" AND m."role" <> 'note' ORDER BY m."id" DESC LIMIT 1),
    'asked_for_person')`;

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
      set.push(
        `"handoffRequestedAt" = ${param(params.requestedAt)}::timestamptz`,
        `"assigneeId" = NULL`,
        `"assigneeName" = NULL`,
        `"handoffReason" = ${HANDOFF_REASON(param(params.limitStoppedAt?.toISOString() ?? null))}`,
      );
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
