// Counts one answered visitor message (a ChatbotInteraction event) in its chatbot's analytics, once
// per request id however often the event is delivered (retries, duplicates, concurrent workers):
// the day's figures (aggregates.ts), the conversation and the visitor when first seen (the visitor's
// day also set in their year of days, which distinct visitors of a range are counted from), and the
// question in the most asked groups and, when the knowledge could not answer it, in the unanswered
// ones (question-clusters.ts). All in one transaction, so a failure counts nothing and the retry
// counts everything.
import { invalid } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { ANSWER_MS_BUCKETS, HOURS_PER_DAY, addToDay, answerMsBucket, dayString, oneAt, utcDay, yearDays } from './aggregates.ts';
import { addQuestions } from './question-clusters.ts';

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
}

/** `counted` the first time; `duplicate` for a request id already counted. */
export type RecordAnalyticsResult = 'counted' | 'duplicate';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Bound on one transaction: rows of a busy chatbot's day are taken one event at a time. */
const TRANSACTION_TIMEOUT_MS = 20_000;

export async function recordAnalytics(db: PrismaClient, input: AnalyticsEventInput): Promise<RecordAnalyticsResult> {
  const event = parseAnalyticsEvent(input);
  const { chatbotId, ownerId, at } = event;
  const day = utcDay(at);
  const [ofYear] = yearDays(day, day);
  return db.$transaction(
    async (tx) => {
      // The claim, the conversation and the visitor in one statement: a concurrent duplicate waits
      // on the claim for the first one's commit, then claims nothing. A new session or visitor row
      // is what makes the day count one more conversation or visitor, and sets the day's bit in the
      // visitor's year (OR: concurrent days of one visitor wait on the row, then both count).
      const [seen] = await tx.$queryRaw<{ claimed: number; session: number; visitor: number }[]>`
        WITH claimed AS (
          INSERT INTO "ProcessedAnalyticsEvent" ("requestId") VALUES (${event.requestId}) ON CONFLICT DO NOTHING RETURNING 1
        ), session AS (
          INSERT INTO "AnalyticsSession" ("chatbotId", "sessionId", "firstDay")
          SELECT ${chatbotId}::uuid, ${event.sessionId}, ${dayString(day)}::date
           WHERE EXISTS (SELECT 1 FROM claimed) AND ${event.sessionId} <> ''
          ON CONFLICT DO NOTHING RETURNING 1
        ), visitor AS (
          INSERT INTO "AnalyticsVisitor" ("chatbotId", "day", "visitorHash")
          SELECT ${chatbotId}::uuid, ${dayString(day)}::date, ${event.visitorHash}
           WHERE EXISTS (SELECT 1 FROM claimed) AND ${event.visitorHash} <> ''
          ON CONFLICT DO NOTHING RETURNING 1
        ), visitor_year AS (
          INSERT INTO "AnalyticsVisitorYear" AS y ("chatbotId", "year", "visitorHash", "days")
          SELECT ${chatbotId}::uuid, ${ofYear.year}::int, ${event.visitorHash}, ${ofYear.mask}::bit(366)
           WHERE EXISTS (SELECT 1 FROM visitor)
          ON CONFLICT ("chatbotId", "year", "visitorHash") DO UPDATE SET "days" = y."days" | EXCLUDED."days"
        )
        SELECT (SELECT count(*) FROM claimed)::int AS claimed, (SELECT count(*) FROM session)::int AS session,
               (SELECT count(*) FROM visitor)::int AS visitor`;
      if (seen.claimed === 0) return 'duplicate';

      await addToDay(
        tx,
        { chatbotId, ownerId, day },
        {
          conversations: seen.session,
          messages: 1,
          answered: event.answered ? 1 : 0,
          uniqueVisitors: seen.visitor,
          answerMsBuckets: oneAt(ANSWER_MS_BUCKETS.length, answerMsBucket(event.answerMs)),
          hours: oneAt(HOURS_PER_DAY, at.getUTCHours()),
        },
      );
      // After the day's row, as applyRating's callers do: the same lock order everywhere.
      const question = { chatbotId, ownerId, question: event.question, language: event.language, at };
      await addQuestions(tx, question, event.answered ? ['asked'] : ['asked', 'unanswered']);
      return 'counted';
    },
    { timeout: TRANSACTION_TIMEOUT_MS, maxWait: TRANSACTION_TIMEOUT_MS },
  );
}

/** Validates the event; a bad one throws InvalidArgument (it would fail the same way on every retry). */
export function parseAnalyticsEvent(input: AnalyticsEventInput) {
  const requestId = input.requestId.trim();
  if (!requestId) throw invalid('request_id is required.');
  if (requestId.length > 200) throw invalid('request_id must be at most 200 characters.');
  if (!UUID.test(input.chatbotId.trim())) throw invalid('chatbot_id must be a UUID.');
  const ownerId = input.ownerId.trim();
  if (!ownerId) throw invalid('owner_id is required.');
  const at = [input.receivedAt, input.occurredAt].find((d) => d && !Number.isNaN(d.getTime()));
  if (!at) throw invalid('received_at is required.');
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
    language: input.language.trim().toLowerCase(),
  };
}
