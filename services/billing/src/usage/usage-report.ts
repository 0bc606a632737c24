// An owner's usage over a range of time: totals, a per-day series and per-chatbot costs computed by
// the database over the whole range, and the newest usage records (capped). Whole UTC days are read
// from the UsageDaily rollup and only the partial first and last days from the usage records, so a
// year of heavy usage costs a few thousand rows, not a million.
import { invalid } from '@parley/common/rpc-errors.ts';
import { Prisma, type Account, type PrismaClient } from '../generated/prisma/client.ts';
import { getAccount } from '../core/get-account.ts';
import type { OpenAccountDeps } from '../core/open-account.ts';
import { parseOwnerId } from '../core/owner-id.ts';

/** The longest range a report covers ("Last year" is 365 days; a leap year and some slack fit). */
export const MAX_RANGE_DAYS = 400;
/** How many records a report lists when the caller does not say. */
export const DEFAULT_RECORDS_LIMIT = 1_000;
export const MAX_RECORDS_LIMIT = 10_000;

const DAY_MS = 86_400_000;
// Usage records start with the product; the upper bound keeps every instant inside Postgres's range.
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31);

export interface UsageReportInput {
  ownerId: string;
  /** Both ends are included. */
  startTime: Date | undefined;
  endTime: Date | undefined;
  /** Only this chatbot's usage; empty or absent for all. */
  chatbotId?: string;
  /** 0 or absent: DEFAULT_RECORDS_LIMIT. */
  limit?: number;
}

export interface UsageTotals {
  totalCost: Prisma.Decimal;
  promptCost: Prisma.Decimal;
  completionCost: Prisma.Decimal;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  requestCount: number;
}

/** A listed usage record; its money is already the exact decimal string formatMoney would give. */
export interface ReportedUsageRecord {
  requestId: string;
  occurredAt: Date;
  chatbotId: string;
  chatbotName: string;
  model: string;
  modelDisplayName: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  promptCost: string;
  completionCost: string;
  totalCost: string;
  /** The developer API's key the answer was asked through; null for the public chat. */
  apiKeyId: string | null;
  /** Given on the workspace's own provider key: its cost is the own-key fee (docs/adr/0043-own-provider-keys.md). */
  ownKey: boolean;
}

export interface UsageDay {
  /** YYYY-MM-DD, UTC. */
  date: string;
  totalCost: Prisma.Decimal;
  totalTokens: number;
  requestCount: number;
}

export interface ChatbotCost {
  chatbotId: string;
  /** The name it had in its newest usage record of the range. */
  chatbotName: string;
  totalCost: Prisma.Decimal;
  requestCount: number;
}

export interface UsageReport {
  account: Account;
  totals: UsageTotals;
  /** Newest first, at most `limit`. */
  records: ReportedUsageRecord[];
  /** Days with usage, oldest first. */
  days: UsageDay[];
  /** Chatbots with usage, costliest first. */
  chatbots: ChatbotCost[];
  limit: number;
}

export async function getUsageReport(deps: OpenAccountDeps, input: UsageReportInput): Promise<UsageReport> {
  const query = parseReportQuery(input);
  const [account, summary, records] = await Promise.all([
    getAccount(deps, query.ownerId),
    usageSummary(deps.prisma, query),
    newestRecords(deps.prisma, query),
  ]);
  return { account, ...summary, records, limit: query.limit };
}

export type ReportQuery = ReturnType<typeof parseReportQuery>;

export function parseReportQuery(input: UsageReportInput) {
  const ownerId = parseOwnerId(input.ownerId);
  const { startTime, endTime } = input;
  if (!startTime || !endTime) throw invalid('start_time and end_time are required.');
  for (const time of [startTime, endTime]) {
    const ms = time.getTime();
    if (Number.isNaN(ms) || ms < EARLIEST || ms > LATEST)
      throw invalid('start_time and end_time must be between 1970-01-01 and 9999-12-31.');
  }
  if (startTime > endTime) throw invalid('start_time must not be after end_time.');
  if (endTime.getTime() - startTime.getTime() > MAX_RANGE_DAYS * DAY_MS)
    throw invalid(`The date range may be at most ${MAX_RANGE_DAYS} days.`);
  const chatbotId = input.chatbotId?.trim() || undefined;
  if (chatbotId && chatbotId.length > 100) throw invalid('chatbot_id must be at most 100 characters.');
  const rawLimit = input.limit ?? 0;
  if (!Number.isInteger(rawLimit) || rawLimit < 0 || rawLimit > MAX_RECORDS_LIMIT) {
    throw invalid(`limit must be a whole number from 1 to ${MAX_RECORDS_LIMIT} (0 for the default, ${DEFAULT_RECORDS_LIMIT}).`);
  }
  // Usage times are stored to the millisecond, so "up to end_time included" is "before end_time + 1 ms".
  const start = startTime.getTime();
  const endExclusive = endTime.getTime() + 1;
  return { ownerId, chatbotId, limit: rawLimit || DEFAULT_RECORDS_LIMIT, start, endExclusive, ...splitIntoDays(start, endExclusive) };
}

/**
 * [start, endExclusive) as the whole UTC days inside it (read from UsageDaily) and the partial days
 * at either end (read from UsageRecord). A range inside one or two days may hold no whole day: then
 * it is all "head". Every range is half-open; an empty one is [x, x).
 */
export function splitIntoDays(start: number, endExclusive: number) {
  const firstWholeDay = Math.ceil(start / DAY_MS) * DAY_MS;
  const afterLastWholeDay = Math.floor(endExclusive / DAY_MS) * DAY_MS;
  if (firstWholeDay >= afterLastWholeDay) {
    return { wholeDays: [firstWholeDay, firstWholeDay], head: [start, endExclusive], tail: [endExclusive, endExclusive] } as const;
  }
  return { wholeDays: [firstWholeDay, afterLastWholeDay], head: [start, firstWholeDay], tail: [afterLastWholeDay, endExclusive] } as const;
}

const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);
const onlyChatbot = (query: ReportQuery) => (query.chatbotId ? Prisma.sql`AND "chatbotId" = ${query.chatbotId}` : Prisma.empty);

interface SummaryRow {
  kind: 'total' | 'day' | 'chatbot';
  date: string | null;
  chatbotId: string | null;
  chatbotName: string | null;
  requests: bigint;
  promptTokens: bigint;
  completionTokens: bigint;
  promptCost: Prisma.Decimal;
  completionCost: Prisma.Decimal;
}

/**
 * Totals, days and chatbots in one statement: the usage of the range as UsageDaily rows (whole days)
 * and usage records (the partial days), grouped three ways at once by GROUPING SETS: per day, per
 * chatbot, and the grand total (a row even when there is no usage). A chatbot's name is the one of
 * its newest record in the range (UsageDaily keeps no names).
 */
async function usageSummary(db: PrismaClient, query: ReportQuery): Promise<Pick<UsageReport, 'totals' | 'days' | 'chatbots'>> {
  const partialDays = (from: number, to: number) => Prisma.sql`
    SELECT ("occurredAt" AT TIME ZONE 'UTC')::date, "chatbotId", 1, "promptTokens", "completionTokens", "promptCost", "completionCost"
      FROM "UsageRecord"
     WHERE "userId" = ${query.ownerId} AND "occurredAt" >= ${iso(from)}::timestamptz AND "occurredAt" < ${iso(to)}::timestamptz ${onlyChatbot(query)}`;
  const rows = await db.$queryRaw<SummaryRow[]>`
    WITH usage ("day", "chatbotId", "requests", "promptTokens", "completionTokens", "promptCost", "completionCost") AS (
      SELECT "day", "chatbotId", "requestCount", "promptTokens", "completionTokens", "promptCost", "completionCost"
        FROM "UsageDaily"
       WHERE "userId" = ${query.ownerId} AND "day" >= ${day(query.wholeDays[0])}::date AND "day" < ${day(query.wholeDays[1])}::date ${onlyChatbot(query)}
      UNION ALL ${partialDays(query.head[0], query.head[1])}
      UNION ALL ${partialDays(query.tail[0], query.tail[1])}
    ), grouped AS (
      SELECT CASE GROUPING("day", "chatbotId") WHEN 1 THEN 'day' WHEN 2 THEN 'chatbot' ELSE 'total' END AS kind,
             "day", "chatbotId",
             coalesce(sum("requests"), 0)::bigint AS requests,
             coalesce(sum("promptTokens"), 0)::bigint AS "promptTokens",
             coalesce(sum("completionTokens"), 0)::bigint AS "completionTokens",
             coalesce(sum("promptCost"), 0) AS "promptCost",
             coalesce(sum("completionCost"), 0) AS "completionCost"
        FROM usage
       GROUP BY GROUPING SETS (("day"), ("chatbotId"), ())
    )
    SELECT g.kind, to_char(g."day", 'YYYY-MM-DD') AS date, g."chatbotId", g.requests, g."promptTokens", g."completionTokens", g."promptCost", g."completionCost",
           (SELECT r."chatbotName" FROM "UsageRecord" AS r
             WHERE g.kind = 'chatbot' AND r."userId" = ${query.ownerId} AND r."chatbotId" = g."chatbotId"
               AND r."occurredAt" >= ${iso(query.start)}::timestamptz AND r."occurredAt" < ${iso(query.endExclusive)}::timestamptz
             ORDER BY r."occurredAt" DESC LIMIT 1) AS "chatbotName"
      FROM grouped AS g
     ORDER BY g."day", g."promptCost" + g."completionCost" DESC, g."chatbotId"`;

  const cost = (row: SummaryRow) => row.promptCost.plus(row.completionCost);
  const tokens = (row: SummaryRow) => Number(row.promptTokens + row.completionTokens);
  const total = rows.find((row) => row.kind === 'total')!;
  return {
    totals: {
      totalCost: cost(total),
      promptCost: total.promptCost,
      completionCost: total.completionCost,
      promptTokens: Number(total.promptTokens),
      completionTokens: Number(total.completionTokens),
      totalTokens: tokens(total),
      requestCount: Number(total.requests),
    },
    days: rows
      .filter((row) => row.kind === 'day')
      .map((row) => ({ date: row.date!, totalCost: cost(row), totalTokens: tokens(row), requestCount: Number(row.requests) })),
    chatbots: rows
      .filter((row) => row.kind === 'chatbot')
      .map((row) => ({
        chatbotId: row.chatbotId!,
        chatbotName: row.chatbotName ?? '',
        totalCost: cost(row),
        requestCount: Number(row.requests),
      })),
  };
}

/**
 * The newest records of the range, newest first, with the model's display name. Postgres writes
 * their costs as formatMoney does (trim_scale drops the trailing zeros; numeric text never uses an
 * exponent): parsing 3,000 Decimals only to print them again was a fifth of a report's CPU.
 */
function newestRecords(db: PrismaClient, query: ReportQuery): Promise<ReportedUsageRecord[]> {
  return db.$queryRaw<ReportedUsageRecord[]>`
    SELECT r."requestId", r."occurredAt", r."chatbotId", r."chatbotName", r."model", coalesce(p."displayName", r."model") AS "modelDisplayName",
           r."promptTokens", r."completionTokens", r."totalTokens",
           trim_scale(r."promptCost")::text AS "promptCost", trim_scale(r."completionCost")::text AS "completionCost",
           trim_scale(r."totalCost")::text AS "totalCost", r."apiKeyId", r."ownKey"
      FROM "UsageRecord" AS r LEFT JOIN "ModelPrice" AS p ON p."modelId" = r."model"
     WHERE r."userId" = ${query.ownerId} AND r."occurredAt" >= ${iso(query.start)}::timestamptz AND r."occurredAt" < ${iso(query.endExclusive)}::timestamptz
           ${query.chatbotId ? Prisma.sql`AND r."chatbotId" = ${query.chatbotId}` : Prisma.empty}
     ORDER BY r."occurredAt" DESC, r."requestId" DESC
     LIMIT ${query.limit}`;
}
