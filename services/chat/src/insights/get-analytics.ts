// A chatbot's analytics over a range of days, and the same summed over all the owner's chatbots,
// read from the aggregates the analytics worker keeps (one AnalyticsDay row per chatbot and day,
// AnalyticsVisitorYear for the distinct visitors of the range, AnalyticsVisitor for those of a day
// across chatbots, QuestionClusterDay for the most asked questions), never from the messages. Pro
// owners get everything; free owners the totals only (`full` false), enforced here like history.
// The most asked questions are visitors' words: a caller whose role does not read conversations (a
// viewer) reads them with their emails, phone numbers and card numbers masked (`questionsRedacted`;
// docs/product.md, Feedback, analytics and unanswered questions).
import { Plan } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { maskContactDetails, readsVisitorsWords } from '@parley/common/redaction.ts';
import { invalid, unavailable } from '@parley/common/rpc-errors.ts';
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { ANSWER_MS_BUCKETS, HOURS_PER_DAY, medianAnswerMs, yearDays } from '../analytics/aggregates.ts';
import { chatbotAccess, type HistoryAccessDeps } from '../core/history-access.ts';
import { eachDay, isoDay, parseDayRange, type DayRange } from './date-range.ts';

export const ANALYTICS_UNAVAILABLE = 'Could not load analytics. Please try again.';
/** How many of the most asked questions a view lists. */
export const TOP_QUESTIONS = 10;
export type InsightsDeps = HistoryAccessDeps & { db: PrismaClient };

export interface AnalyticsTotals {
  conversations: number;
  messages: number;
  uniqueVisitors: number;
  answered: number;
  thumbsUp: number;
  thumbsDown: number;
  medianAnswerMs: number;
}

export interface Analytics {
  totals: AnalyticsTotals;
  full: boolean;
  days: { date: string; conversations: number; messages: number; uniqueVisitors: number }[];
  busiestHours: number[];
  topQuestions: { question: string; count: number }[];
  /** The questions' contact details are masked, the caller's role not reading conversations. */
  questionsRedacted: boolean;
}

/** Who asks: the member's role the gateway's call carries (undefined: none, which reads as a viewer's). */
export interface AnalyticsCaller {
  role: string | undefined;
}

/** The fields of an AnalyticsDay row a view reads. */
export interface DayFigures {
  day: Date;
  conversations: number;
  messages: number;
  answered: number;
  uniqueVisitors: number;
  thumbsUp: number;
  thumbsDown: number;
  answerMsBuckets: number[];
  hours: number[];
}

export async function getAnalytics(
  deps: InsightsDeps,
  input: { ownerId: string; chatbotId: string; startDate?: string; endDate?: string },
  caller: AnalyticsCaller,
  now = new Date(),
): Promise<Analytics> {
  const range = parseDayRange(input, now);
  const { chatbotId, pro } = await chatbotAccess(deps, input, ANALYTICS_UNAVAILABLE);
  const inRange = { gte: range.start, lte: range.end };
  // The distinct visitors are read after the day rows (as the summary does), never beside them: an
  // analytics batch writes both in one transaction, so read in this order they count at least every
  // visitor of the messages the rows show. Read side by side, a batch committing between the two
  // reads showed its messages with none of their visitors.
  const [rows, topQuestions] = await Promise.all([
    deps.db.analyticsDay.findMany({ where: { chatbotId, day: inRange }, orderBy: { day: 'asc' } }),
    pro ? topAsked(deps.db, [chatbotId], range) : [],
  ]);
  const visitors = await distinctVisitors(deps.db, [chatbotId], range);
  // One chatbot's day rows already hold its distinct visitors of the day.
  return forCaller(summarise(rows, range, { uniqueVisitors: visitors, full: pro, topQuestions }), caller);
}

export async function getAnalyticsSummary(
  deps: InsightsDeps,
  input: { ownerId: string; startDate?: string; endDate?: string },
  caller: AnalyticsCaller,
  now = new Date(),
): Promise<Analytics> {
  const range = parseDayRange(input, now);
  const ownerId = input.ownerId.trim();
  if (!ownerId) throw invalid('owner_id is required.');
  const pro = await isPro(deps, ownerId);
  const rows = await deps.db.analyticsDay.findMany({ where: { ownerId, day: { gte: range.start, lte: range.end } } });
  const chatbotIds = [...new Set(rows.map((r) => r.chatbotId))];
  if (!chatbotIds.length) return forCaller(summarise([], range, { uniqueVisitors: 0, full: pro, topQuestions: [] }), caller);
  // A visitor of two chatbots is one visitor of the owner, on a day as over the range.
  const [visitors, daily, topQuestions] = await Promise.all([
    distinctVisitors(deps.db, chatbotIds, range),
    pro && chatbotIds.length > 1
      ? deps.db.$queryRaw<{ day: Date; n: number }[]>`
          SELECT "day", count(DISTINCT "visitorHash")::int AS n FROM "AnalyticsVisitor"
          WHERE "chatbotId" = ANY(${chatbotIds}::uuid[]) AND "day" BETWEEN ${range.start}::date AND ${range.end}::date
          GROUP BY "day"`
      : [],
    pro ? topAsked(deps.db, chatbotIds, range) : [],
  ]);
  // One chatbot's day rows already hold its distinct visitors of the day.
  const visitorsByDay = chatbotIds.length > 1 ? new Map(daily.map((d) => [isoDay(d.day), d.n])) : undefined;
  return forCaller(summarise(rows, range, { uniqueVisitors: visitors, full: pro, topQuestions, visitorsByDay }), caller);
}

/**
 * The view as the caller may read it: for a role that does not read conversations, each question
 * with its contact details masked (two groups may then read the same; each keeps its own count).
 */
export function forCaller(analytics: Analytics, caller: AnalyticsCaller): Analytics {
  if (readsVisitorsWords(caller.role)) return analytics;
  return {
    ...analytics,
    topQuestions: analytics.topQuestions.map(({ question, count }) => ({ question: maskContactDetails(question), count })),
    questionsRedacted: true,
  };
}

/**
 * Distinct visitors of the chatbots over the range, exact, from AnalyticsVisitorYear: a visitor's row
 * of a year the range touches counts when its days meet the range's days of that year (a whole year
 * needs no test). A year of a busy chatbot is ~50,000 rows instead of ~250,000 visitor-days
 * (bench/analytics.ts). A year's rows of one chatbot are distinct visitors already; of several, a
 * visitor of two chatbots is one visitor. A range over several years (at most 3: 400 days) joins the
 * years' visitors, so one who came in two of them is counted once.
 */
async function distinctVisitors(db: PrismaClient, chatbotIds: string[], range: DayRange): Promise<number> {
  const years = yearDays(range.start, range.end).map(
    ({ year, mask, wholeYear }) => Prisma.sql`
      SELECT ${Prisma.raw(chatbotIds.length > 1 ? 'DISTINCT ' : '')}"visitorHash" FROM "AnalyticsVisitorYear"
      WHERE "chatbotId" = ANY(${chatbotIds}::uuid[]) AND "year" = ${year}::int
        ${wholeYear ? Prisma.empty : Prisma.sql`AND bit_count("days" & ${mask}::bit(366)) > 0`}`,
  );
  const joined = years.map((year, i) =>
    i === 0 ? Prisma.sql`(${year}) AS y0` : Prisma.sql`FULL JOIN (${year}) AS ${Prisma.raw(`y${i}`)} USING ("visitorHash")`,
  );
  const [{ n }] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM ${Prisma.join(joined, ' ')}`;
  return n;
}

async function isPro(deps: InsightsDeps, ownerId: string): Promise<boolean> {
  try {
    const { account } = await deps.billing.getAccount({ ownerId });
    return account?.plan === Plan.PRO;
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'billing GetAccount failed');
    throw unavailable(ANALYTICS_UNAVAILABLE);
  }
}

/**
 * The view from day rows (of one chatbot, or of several summed by day): totals, every day of the
 * range with zeros where nothing happened, and the hours summed. Free owners get the totals only.
 */
export function summarise(
  rows: DayFigures[],
  range: DayRange,
  extra: {
    uniqueVisitors: number;
    full: boolean;
    topQuestions: { question: string; count: number }[];
    /** Distinct visitors per day when rows of several chatbots are summed; else the rows' own. */
    visitorsByDay?: Map<string, number>;
  },
): Analytics {
  const totals = { conversations: 0, messages: 0, answered: 0, thumbsUp: 0, thumbsDown: 0 };
  const buckets = new Array<number>(ANSWER_MS_BUCKETS.length).fill(0);
  const hours = new Array<number>(HOURS_PER_DAY).fill(0);
  const byDay = new Map<string, { conversations: number; messages: number; uniqueVisitors: number }>();
  for (const row of rows) {
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += row[key];
    row.answerMsBuckets.forEach((n, i) => i < buckets.length && (buckets[i] += n));
    row.hours.forEach((n, i) => i < HOURS_PER_DAY && (hours[i] += n));
    const date = isoDay(row.day);
    const day = byDay.get(date) ?? { conversations: 0, messages: 0, uniqueVisitors: 0 };
    day.conversations += row.conversations;
    day.messages += row.messages;
    day.uniqueVisitors += row.uniqueVisitors;
    byDay.set(date, day);
  }
  const analytics: Analytics = {
    totals: { ...totals, uniqueVisitors: extra.uniqueVisitors, medianAnswerMs: medianAnswerMs(buckets) ?? 0 },
    full: extra.full,
    days: [],
    busiestHours: [],
    topQuestions: [],
    questionsRedacted: false,
  };
  if (!extra.full) return analytics;
  analytics.days = eachDay(range).map((d) => {
    const date = isoDay(d);
    const day = byDay.get(date) ?? { conversations: 0, messages: 0, uniqueVisitors: 0 };
    return { date, ...day, uniqueVisitors: extra.visitorsByDay ? (extra.visitorsByDay.get(date) ?? 0) : day.uniqueVisitors };
  });
  analytics.busiestHours = hours;
  analytics.topQuestions = extra.topQuestions;
  return analytics;
}

/** Groups read at once, and how many such reads before summing every group's days instead. */
const CANDIDATE_BATCH = 200;
const MAX_CANDIDATE_BATCHES = 5;

/**
 * The most asked questions of the chatbots over the range: asked groups by their day counts in it,
 * ties to the group asked most of all time, then the lower id. Exact, without summing every group's
 * days (a year of a busy chatbot is hundreds of thousands of day counts): a group's count in a range
 * is at most its all-time count, so groups are read in order of all-time count (then id) and the
 * search stops once the tenth best range count is at least the all-time count of the last group read,
 * which no later group can then overtake or tie and win. Usually the all-time leaders are the range's
 * and one read settles it; when a range's leaders are rare of all time (a past range, a new topic),
 * after a few reads every group's days of the range are summed instead.
 */
export async function topAsked(db: PrismaClient, chatbotIds: string[], range: DayRange): Promise<{ question: string; count: number }[]> {
  type Group = { id: string; question: string; total: number; inRange: number };
  const best: Group[] = [];
  const rank = (a: Group, b: Group) => b.inRange - a.inRange || b.total - a.total || (a.id < b.id ? -1 : 1);
  for (let read = 0; ; read++) {
    if (read === MAX_CANDIDATE_BATCHES) return sumAllGroups(db, chatbotIds, range);
    const batch = await db.$queryRaw<Group[]>`
      WITH candidates AS (
        SELECT "id", "question", "count" AS total FROM "QuestionCluster"
        WHERE "chatbotId" = ANY(${chatbotIds}::uuid[]) AND "kind" = 'asked'
        ORDER BY "count" DESC, "id" OFFSET ${read * CANDIDATE_BATCH} LIMIT ${CANDIDATE_BATCH}
      )
      SELECT c."id"::text AS id, c."question", c.total, COALESCE(sum(d."count"), 0)::int AS "inRange"
      FROM candidates c LEFT JOIN "QuestionClusterDay" d
        ON d."clusterId" = c."id" AND d."day" BETWEEN ${range.start}::date AND ${range.end}::date
      GROUP BY c."id", c."question", c.total
      ORDER BY c.total DESC, c."id"`;
    for (const g of batch) if (g.inRange > 0) best.push(g);
    best.sort(rank).splice(TOP_QUESTIONS);
    if (batch.length < CANDIDATE_BATCH) break;
    if (best.length === TOP_QUESTIONS && best.at(-1)!.inRange >= batch.at(-1)!.total) break;
  }
  return best.map(({ question, inRange }) => ({ question, count: inRange }));
}

/** The same, summing every asked group's days of the range (the direct reading, in the same order). */
export async function sumAllGroups(db: PrismaClient, chatbotIds: string[], range: DayRange) {
  const rows = await db.$queryRaw<{ question: string; inRange: number }[]>`
    SELECT c."question", sum(d."count")::int AS "inRange"
    FROM "QuestionCluster" c JOIN "QuestionClusterDay" d ON d."clusterId" = c."id"
    WHERE c."chatbotId" = ANY(${chatbotIds}::uuid[]) AND c."kind" = 'asked' AND d."day" BETWEEN ${range.start}::date AND ${range.end}::date
    GROUP BY c."id"
    ORDER BY "inRange" DESC, c."count" DESC, c."id"
    LIMIT ${TOP_QUESTIONS}`;
  return rows.map((r) => ({ question: r.question, count: r.inRange }));
}
