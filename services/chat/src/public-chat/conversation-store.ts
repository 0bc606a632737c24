// A conversation's messages as the public chat reads and writes them: the recent turns for the
// prompt, and each answered exchange (the visitor's message and the answer, stored together).
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { storedSources } from './message-sources.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Source } from './citations.ts';
import { fitHistory, type Turn } from './build-prompt.ts';
import type { Usage } from '../usage/publishers.ts';

/**
 * The sessions that store answered exchanges commit without waiting for the WAL to reach the disk
 * (ADR 0007). The exchange has already been answered when it is stored, so waiting for the flush
 * only delayed the visitor (about 1 ms of each answer here); what it risks is bounded: if the
 * database server itself crashes, the exchanges committed in its last moments (at most three
 * wal_writer_delay, 0.6 s by default) are missing from the owner's history. Nothing is ever
 * half-written: PostgreSQL replays the WAL up to a consistent point. Every other write of the
 * service (deleting a deleted chatbot's conversations) keeps the default, as does billing.
 */
export const EXCHANGE_SESSION_SETTINGS = { synchronous_commit: 'off' };
/** The exchange pool's size as a share of DATABASE_POOL_MAX (database.ts, poolShare): 5 at the default 10. */
export const EXCHANGE_POOL_SHARE = 0.5;
/** Its size at the default DATABASE_POOL_MAX, as bench/exchange-store.ts measures it. */
export const EXCHANGE_POOL_SIZE = 5;

/**
 * Where exchanges are stored: the service's exchange pool, a plain pg pool (pgPool with
 * EXCHANGE_SESSION_SETTINGS), or in tests any pool. The one statement below needs nothing of Prisma,
 * whose raw query costs about 120 µs of the service's CPU against 50 µs through the driver alone
 * (3,000 statements of the same shape, 10 at a time).
 */
export type ExchangePool = Pick<pg.Pool, 'query'>;

/** Messages read for the prompt's history at most; the character budget usually stops sooner. */
const MAX_HISTORY_MESSAGES = 40;

export interface ConversationKey {
  chatbotId: string;
  sessionId: string;
}

export async function loadRecentTurns(db: PrismaClient, key: ConversationKey, budgetChars: number): Promise<Turn[]> {
  if (budgetChars <= 0) return [];
  // One statement; the newest MAX_HISTORY_MESSAGES of the conversation, newest first. An agent's
  // replies are the assistant's turns (the bot continues what the person said, ADR 34); system
  // messages and internal notes never reach a prompt.
  const rows = await db.$queryRaw<{ role: Turn['role'] | 'agent'; content: string }[]>`
    SELECT m."role"::text AS "role", m."content"
      FROM "Message" AS m JOIN "Conversation" AS c ON c."id" = m."conversationId"
     WHERE c."chatbotId" = ${key.chatbotId}::uuid AND c."sessionId" = ${key.sessionId} AND m."role" IN ('user', 'assistant', 'agent')
     ORDER BY m."createdAt" DESC, m."id" DESC
     LIMIT ${MAX_HISTORY_MESSAGES}`;
  const turns = rows.reverse().map((r): Turn => ({ role: r.role === 'agent' ? 'assistant' : r.role, content: r.content }));
  return fitHistory(turns, budgetChars);
}

export interface Exchange extends ConversationKey {
  ownerId: string;
  clientIp: string | null;
  userAgent: string | null;
  /** What the host page told of its visitor; kept when the exchange opens the conversation. Absent: not told. */
  visitorId?: string | null;
  visitorName?: string | null;
  visitorEmail?: string | null;
  /** The verified visitor of this message (visitor-identity.ts): kept on the conversation, replacing an earlier one. Absent: not verified. */
  verified?: { userId: string; email: string | null } | null;
  message: string;
  receivedAt: Date;
  answer: string;
  answeredAt: Date;
  /** Whether the knowledge answered (a cited source or a Q&A pair): kept on the answer for its rating. */
  answered: boolean;
  /** What the answer cites, in the order of its [n] markers: kept for the owner's History. */
  sources: Source[];
  /**
   * The model's usage of the answer (what UsageRecorded carries), kept on it with its request id, so
   * that a hold whose event was lost is settled from the stored exchange (ADR 37); absent for
   * answers no model gave (offline, Q&A).
   */
  usage?: Usage | null;
  /** Why the answer could not help (core/reasons.ts), kept on it; absent or null when it helped. */
  reason?: string | null;
}

/**
 * Stores both messages in one statement (so atomically), opening the conversation on its first
 * exchange (with the visitor's IP and user agent, and the id and name the host page told) and otherwise advancing its updatedAt and message
 * count; a closed conversation (an agent closed it) is the bot's again from this answer (ADR 34). Two first messages of one session at once meet in the unique (chatbotId, sessionId) index:
 * the second updates the row the first created. Returns the stored answer's id (what the visitor
 * rates it by), read back from the same statement; null when the chatbot was deleted while it
 * answered (DeletedChatbot, recorded before its conversations are deleted): nothing is stored, so
 * the deletion is not undone. Only a statement already running when the deletion is recorded, and
 * still uncommitted when the conversations are deleted, could store one (ADR 18).
 */
export async function recordExchange(db: ExchangePool, x: Exchange): Promise<string | null> {
  const { rows } = await db.query<{ id: string; role: string }>({
    // Named, so each connection parses and plans it once (ADR 0078): sent unnamed, PostgreSQL
    // parsed and planned it again for every exchange, 0.40 ms of the statement's 0.63.
    name: 'record-exchange',
    text: `WITH conversation AS (
      INSERT INTO "Conversation" ("id", "chatbotId", "ownerId", "sessionId", "userIp", "userAgent", "visitorId", "visitorName",
                                  "visitorEmail", "messageCount", "createdAt", "updatedAt", "verifiedUserId", "verifiedEmail", "verifiedAt")
      SELECT $1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8, $15, 2, $9::timestamptz, $10::timestamptz,
             $18::text, $19::text, CASE WHEN $18::text IS NULL THEN NULL ELSE $10::timestamptz END
       WHERE NOT EXISTS (SELECT 1 FROM "DeletedChatbot" WHERE "chatbotId" = $2::uuid)
      ON CONFLICT ("chatbotId", "sessionId") DO UPDATE
        SET "messageCount" = "Conversation"."messageCount" + 2, "updatedAt" = EXCLUDED."updatedAt",
            "verifiedUserId" = COALESCE(EXCLUDED."verifiedUserId", "Conversation"."verifiedUserId"),
            "verifiedEmail" = CASE WHEN EXCLUDED."verifiedUserId" IS NULL THEN "Conversation"."verifiedEmail" ELSE EXCLUDED."verifiedEmail" END,
            "verifiedAt" = COALESCE(EXCLUDED."verifiedAt", "Conversation"."verifiedAt"),
            "handoffStatus" = CASE WHEN "Conversation"."handoffStatus" = 'closed' THEN 'bot' ELSE "Conversation"."handoffStatus" END
      RETURNING "id"
    )
    INSERT INTO "Message" ("conversationId", "role", "content", "createdAt", "answered", "sources", "requestId", "usage", "reason")
    SELECT conversation."id", m."role"::"MessageRole", m."content", m."createdAt", m."answered", m."sources", m."requestId", m."usage", m."reason"
      FROM conversation,
           (VALUES (1, 'user', $11, $9::timestamptz, NULL::boolean, NULL::jsonb, NULL::text, NULL::jsonb, NULL::text),
                   (2, 'assistant', $12, $10::timestamptz, $13::boolean, $14::jsonb, $16::text, $17::jsonb, $20::text))
             AS m("order", "role", "content", "createdAt", "answered", "sources", "requestId", "usage", "reason")
     ORDER BY m."order"
    RETURNING "id", "role"::text AS "role"`,
    values: [
      randomUUID(),
      x.chatbotId,
      x.ownerId,
      x.sessionId,
      x.clientIp,
      x.userAgent,
      x.visitorId ?? null,
      x.visitorName ?? null,
      x.receivedAt.toISOString(),
      x.answeredAt.toISOString(),
      x.message,
      x.answer,
      x.answered,
      storedSources(x.sources),
      x.visitorEmail ?? null,
      x.usage?.requestId ?? null,
      x.usage ? storedUsage(x.usage) : null,
      x.verified?.userId ?? null,
      x.verified?.email ?? null,
      x.reason ?? null,
    ],
  });
  if (rows.length === 0) return null;
  const answer = rows.find((r) => r.role === 'assistant');
  if (!answer) throw new Error('the stored exchange returned no answer');
  return answer.id;
}

/** A model answer's usage as the exchange keeps it (JSON; its request id has a column of its own). */
function storedUsage(u: Usage): string {
  return JSON.stringify({
    ownerId: u.ownerId,
    chatbotId: u.chatbotId,
    chatbotName: u.chatbotName,
    model: u.model,
    promptTokens: u.promptTokens,
    completionTokens: u.completionTokens,
    occurredAt: u.occurredAt.toISOString(),
    apiKeyId: u.apiKeyId ?? '',
    provider: u.provider,
    cachedPromptTokens: u.cachedPromptTokens,
    reasoningTokens: u.reasoningTokens,
    fallback: u.fallback,
  });
}
