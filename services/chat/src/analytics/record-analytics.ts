// Counts answered visitor messages (ChatbotInteraction events) in their chatbot's analytics, each once
// per request id however often the event is delivered (retries, duplicates, concurrent workers):
// the day's figures (aggregates.ts), the conversation and the visitor when first seen (the visitor's
// day also set in their year of days, which distinct visitors of a range are counted from), and the
// question in the most asked groups and, when the knowledge could not answer it, in the unanswered
// ones (question-clusters.ts). The same transaction records how many of the batch's messages each
// chatbot had, for the chatbot service's interaction counter (chatbot-interactions-counted.outbox.ts,
// ADR 23). A batch of events in one transaction (the worker gathers what arrives at once: a busy
// chatbot's events cost a few statements per batch, not ten per message), so a failure counts
// nothing and the retry counts everything.
import { invalid } from '@parley/common/rpc-errors.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { ANSWER_MS_BUCKETS, HOURS_PER_DAY, addToDay, answerMsBucket, dayString, yearDays, type DayIncrement } from './aggregates.ts';
import { addQuestionBatch } from './question-clusters.ts';
import { lockDeletedChatbots } from '../core/deleted-chatbots.ts';
import { recordInteractionsCounted, type InteractionsCounted } from './chatbot-interactions-counted.outbox.ts';
import { isUuid } from '@parley/common/ids.ts';
import { readReason } from '../core/reasons.ts';

/** The ChatbotInteraction event, decoded. */
export interface AnalyticsEventInput {
  requestId: string;
  chatbotId: string;
  ownerId: string;
  sessionId: string;
  /** Salted hash of the visitor's IP; empty when unknown (then not counted as a visitor). */
  visitorHash: string;
  question: string;
  answered: boolean;
  answerMs: number;
  /** When the message arrived: its day and hour. Falls back to occurredAt. */
  receivedAt: Date | undefined;
  occurredAt: Date | undefined;
  language: string;
  /** Why the answer could not help (core/reasons.ts); empty or absent when it helped or was not told. */
  reason?: string;
  /**
   * The chat service published the event to analytics alone, so analytics also counts it in the
   * chatbot's interactions; false for an event of an earlier chat service, which the chatbot service
   * counts from its own copy (parley.chatbot-interaction).
   */
  interactionsViaAnalytics: boolean;
}

/**
 * `counted` the first time; `duplicate` for a request id already counted; `chatbot-deleted` for an
 * event of a chatbot whose deletion was applied (DeletedChatbot), which counts nothing.
 */
export type RecordAnalyticsResult = 'counted' | 'duplicate' | 'chatbot-deleted';

/** Bound on one transaction: rows of a busy chatbot's day are taken one batch at a time. */
const TRANSACTION_TIMEOUT_MS = 20_000;

export type AnalyticsEvent = ReturnType<typeof parseAnalyticsEvent>;

/**
 * Told, after the commit, the batch's newly counted messages and the conversations they opened (for
 * webhooks' message.created and conversation.started, analytics/webhook-events.ts; never fails).
 */
export type AnnounceWebhookEvents = (counted: readonly AnalyticsEvent[], newSessions: readonly NewSession[]) => Promise<void>;
export interface NewSession {
  chatbotId: string;
  sessionId: string;
}

/** Publishes the batch's ChatbotInteractionsCounted records once its transaction has committed (never fails). */
export type AnnounceInteractionsCounted = (records: InteractionsCounted[]) => Promise<void>;

export async function recordAnalytics(
  db: PrismaClient,
  input: AnalyticsEventInput,
  announce?: AnnounceInteractionsCounted,
): Promise<RecordAnalyticsResult> {
  const [result] = await recordAnalyticsBatch(db, [parseAnalyticsEvent(input)], announce);
  return result;
}

/**
 * Counts a batch of events in ONE transaction, each once, with what the events of the batch share
 * written once: one claim, session, visitor and visitor-year statement for all of them, one row
 * update per chatbot-day, and the questions' grouping in three statements (question-clusters.ts). The
 * figures are those of counting the events one by one (the same rows, the same increments); the
 * worker (analytics-interaction.job.ts) gathers the events it receives at once into a batch.
 * The transaction also writes one ChatbotInteractionsCounted outbox record per chatbot of the
 * counted events, which `announce` publishes after the commit (without it, the records wait for the
 * relay). A failure counts none of the batch and records nothing, and each event's retry counts it.
 */
export async function recordAnalyticsBatch(
  db: PrismaClient,
  batch: readonly AnalyticsEvent[],
  announce?: AnnounceInteractionsCounted,
  announceWebhooks?: AnnounceWebhookEvents,
): Promise<RecordAnalyticsResult[]> {
  if (batch.length === 0) return [];
  const { results, interactionsCounted, counted, newSessions } = await db.$transaction(
    async (tx) => {
      // A chatbot deleted since its events were queued: its figures are gone and stay gone
      // (taking its lock first, before anything is written).
      const deleted = await lockDeletedChatbots(
        tx,
        batch.map((e) => e.chatbotId),
      );
      // The claims: a request id already counted (or claimed by a concurrent batch, which this one
      // waits on) claims nothing; one repeated inside the batch counts once, in its first place.
      const claimed = new Set(
        (
          await tx.$queryRaw<{ requestId: string }[]>`
            INSERT INTO "ProcessedAnalyticsEvent" ("requestId")
            SELECT DISTINCT r FROM unnest(${batch.map((e) => e.requestId)}::text[]) AS r ORDER BY r
            ON CONFLICT DO NOTHING RETURNING "requestId"`
        ).map((r) => r.requestId),
      );
      const counted: AnalyticsEvent[] = [];
      const results = batch.map((event): RecordAnalyticsResult => {
        if (!claimed.delete(event.requestId)) return 'duplicate';
        if (deleted.has(event.chatbotId)) return 'chatbot-deleted';
        counted.push(event);
        return 'counted';
      });
      if (counted.length === 0) return { results, interactionsCounted: [], counted, newSessions: [] };
      // Oldest first, so a session or visitor first seen in the batch is counted on its first day.
      counted.sort((a, b) => a.at.getTime() - b.at.getTime());

      // A new session or visitor row is what makes its day count one more conversation or visitor.
      // Each key once (a session at its first day in the batch), inserted in key order like every
      // batch, so two batches of other instances never wait on each other's rows crosswise.
      const sessions = firstByKey(
        counted.filter((e) => e.sessionId !== ''),
        (e) => `${e.chatbotId}|${e.sessionId}`,
      );
      const newSessions = await tx.$queryRaw<{ chatbotId: string; sessionId: string; day: string }[]>`
        INSERT INTO "AnalyticsSession" ("chatbotId", "sessionId", "firstDay")
        SELECT c::uuid, s, d::date
          FROM unnest(${sessions.map((e) => e.chatbotId)}::text[], ${sessions.map((e) => e.sessionId)}::text[],
                      ${sessions.map((e) => dayString(e.at))}::text[]) WITH ORDINALITY AS t(c, s, d, i)
         ORDER BY i
        ON CONFLICT DO NOTHING RETURNING "chatbotId"::text AS "chatbotId", "sessionId", to_char("firstDay", 'YYYY-MM-DD') AS day`;
      const visitors = firstByKey(
        counted.filter((e) => e.visitorHash !== ''),
        (e) => `${e.chatbotId}|${dayString(e.at)}|${e.visitorHash}`,
      );
      const newVisitors = await tx.$queryRaw<{ chatbotId: string; day: string; visitorHash: string }[]>`
        INSERT INTO "AnalyticsVisitor" ("chatbotId", "day", "visitorHash")
        SELECT c::uuid, d::date, v
          FROM unnest(${visitors.map((e) => e.chatbotId)}::text[], ${visitors.map((e) => dayString(e.at))}::text[],
                      ${visitors.map((e) => e.visitorHash)}::text[]) WITH ORDINALITY AS t(c, d, v, i)
         ORDER BY i
        ON CONFLICT DO NOTHING RETURNING "chatbotId"::text AS "chatbotId", to_char("day", 'YYYY-MM-DD') AS day, "visitorHash"`;
      await setVisitorYears(tx, newVisitors);

      // The days' rows, in key order (as every batch takes them, so two batches never deadlock).
      const days = new Map<string, { chatbotId: string; ownerId: string; day: Date; inc: Required<DayIncrement> }>();
      const dayOf = (chatbotId: string, day: string, ownerId = '') => {
        const key = `${chatbotId}|${day}`;
        let row = days.get(key);
        if (!row) {
          row = { chatbotId, ownerId, day: new Date(`${day}T00:00:00Z`), inc: emptyIncrement() };
          days.set(key, row);
        }
        if (ownerId) row.ownerId = ownerId;
        return row.inc;
      };
      for (const e of counted) {
        const inc = dayOf(e.chatbotId, dayString(e.at), e.ownerId);
        inc.messages += 1;
        inc.answered += e.answered ? 1 : 0;
        inc.answerMsBuckets[answerMsBucket(e.answerMs)] += 1;
        inc.hours[e.at.getUTCHours()] += 1;
      }
      for (const s of newSessions) dayOf(s.chatbotId, s.day).conversations += 1;
      for (const v of newVisitors) dayOf(v.chatbotId, v.day).uniqueVisitors += 1;
      for (const key of [...days.keys()].sort()) {
        const { chatbotId, ownerId, day, inc } = days.get(key)!;
        await addToDay(tx, { chatbotId, ownerId, day }, inc);
      }

      // After the days' rows, as applyRating's callers do: the same lock order everywhere.
      await addQuestionBatch(
        tx,
        counted.map((e) => ({
          chatbotId: e.chatbotId,
          ownerId: e.ownerId,
          question: e.question,
          language: e.language,
          at: e.at,
          reason: e.reason,
          kinds: e.answered ? (['asked'] as const) : (['asked', 'unanswered'] as const),
        })),
      );

      // The chatbots' interaction counters: new rows with fresh ids, so no lock is waited on.
      const interactionsCounted = await recordInteractionsCounted(
        tx,
        counted.filter((e) => e.interactionsViaAnalytics),
      );
      return { results, interactionsCounted, counted, newSessions };
    },
    { timeout: TRANSACTION_TIMEOUT_MS, maxWait: TRANSACTION_TIMEOUT_MS },
  );
  if (announce && interactionsCounted.length > 0) await announce(interactionsCounted);
  if (announceWebhooks && counted.length > 0) await announceWebhooks(counted, newSessions);
  return results;
}

/** The first event of each key (events oldest first), in key order. */
function firstByKey(events: readonly AnalyticsEvent[], key: (e: AnalyticsEvent) => string): AnalyticsEvent[] {
  const first = new Map<string, AnalyticsEvent>();
  for (const e of events) if (!first.has(key(e))) first.set(key(e), e);
  return [...first.keys()].sort().map((k) => first.get(k)!);
}

function emptyIncrement(): Required<DayIncrement> {
  return {
    conversations: 0,
    messages: 0,
    answered: 0,
    uniqueVisitors: 0,
    thumbsUp: 0,
    thumbsDown: 0,
    answerMsBuckets: new Array<number>(ANSWER_MS_BUCKETS.length).fill(0),
    hours: new Array<number>(HOURS_PER_DAY).fill(0),
  };
}

/**
 * Sets each new visitor-day's bit in the visitor's year (OR: a concurrent day of the same visitor
 * waits on the row, then both count). Days of one visitor's year in the batch are joined first: one
 * statement may not update a row twice.
 */
async function setVisitorYears(tx: Prisma.TransactionClient, newVisitors: { chatbotId: string; day: string; visitorHash: string }[]) {
  const years = new Map<string, { chatbotId: string; year: number; visitorHash: string; mask: string }>();
  for (const v of newVisitors) {
    const day = new Date(`${v.day}T00:00:00Z`);
    const [ofYear] = yearDays(day, day);
    const key = `${v.chatbotId}|${ofYear.year}|${v.visitorHash}`;
    const seen = years.get(key);
    years.set(key, {
      chatbotId: v.chatbotId,
      year: ofYear.year,
      visitorHash: v.visitorHash,
      mask: seen ? orMasks(seen.mask, ofYear.mask) : ofYear.mask,
    });
  }
  if (years.size === 0) return;
  const rows = [...years.keys()].sort().map((k) => years.get(k)!);
  await tx.$executeRaw`
    INSERT INTO "AnalyticsVisitorYear" AS y ("chatbotId", "year", "visitorHash", "days")
    SELECT c::uuid, yr, v, m::bit(366)
      FROM unnest(${rows.map((r) => r.chatbotId)}::text[], ${rows.map((r) => r.year)}::int[],
                  ${rows.map((r) => r.visitorHash)}::text[], ${rows.map((r) => r.mask)}::text[]) WITH ORDINALITY AS t(c, yr, v, m, i)
     ORDER BY i
    ON CONFLICT ("chatbotId", "year", "visitorHash") DO UPDATE SET "days" = y."days" | EXCLUDED."days"`;
}

function orMasks(a: string, b: string): string {
  let out = '';
  for (let i = 0; i < a.length; i++) out += a[i] === '1' || b[i] === '1' ? '1' : '0';
  return out;
}

/** Validates the event; a bad one throws InvalidArgument (it would fail the same way on every retry). */
export function parseAnalyticsEvent(input: AnalyticsEventInput) {
  const requestId = input.requestId.trim();
  if (!requestId) throw invalid('request_id is required.');
  if (requestId.length > 200) throw invalid('request_id must be at most 200 characters.');
  if (!isUuid(input.chatbotId.trim())) throw invalid('chatbot_id must be a UUID.');
  const ownerId = input.ownerId.trim();
  if (!ownerId) throw invalid('owner_id is required.');
  const at = [input.receivedAt, input.occurredAt].find((d) => d && !Number.isNaN(d.getTime()));
  if (!at) throw invalid('received_at is required.');
  const occurredAt = input.occurredAt && !Number.isNaN(input.occurredAt.getTime()) ? input.occurredAt : at;
  return {
    requestId,
    chatbotId: input.chatbotId.trim().toLowerCase(),
    ownerId,
    sessionId: input.sessionId.trim(),
    visitorHash: input.visitorHash.trim(),
    question: input.question,
    answered: input.answered,
    answerMs: input.answerMs,
    at,
    /** When the answer was recorded (else when the message arrived): the chatbot's last interaction. */
    occurredAt,
    language: input.language.trim().toLowerCase(),
    interactionsViaAnalytics: input.interactionsViaAnalytics,
    // An unknown code (a newer service's) is filed as no reason: the group's own default applies.
    reason: readReason(input.reason),
  };
}
