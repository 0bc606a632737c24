// The rules of one chatbot's day of figures (AnalyticsDay): which UTC day and hour an event falls
// in, the answer-time histogram the median is read from, the statements that add to a day's row,
// and the layout of a visitor's year of days (AnalyticsVisitorYear: a bit per day of the year).
// Every writer (the analytics worker and a visitor's rating) adds through these, so a row is always
// created with its arrays at full length and two writers of the same day at once both count (one
// INSERT … ON CONFLICT DO UPDATE each, atomic per row).
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';

/**
 * Lower bounds (ms) of the answer-time histogram's buckets, log-scale: bucket i counts answers of
 * [ANSWER_MS_BUCKETS[i], ANSWER_MS_BUCKETS[i + 1]) ms, the last one everything from 60 s on. Never
 * reorder or remove a bound: stored rows are positional (appending one is safe, the arrays grow).
 */
export const ANSWER_MS_BUCKETS: readonly number[] = [
  0, 50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10_000, 15_000, 20_000, 30_000, 60_000,
];

export const HOURS_PER_DAY = 24;
const DAY_MS = 86_400_000;

/** A database handle or an open transaction: the statements below run in whichever they are given. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** The histogram bucket of an answer time (negative or non-finite times count as 0 ms). */
export function answerMsBucket(ms: number): number {
  const value = Number.isFinite(ms) && ms > 0 ? ms : 0;
  let bucket = 0;
  while (bucket + 1 < ANSWER_MS_BUCKETS.length && ANSWER_MS_BUCKETS[bucket + 1] <= value) bucket++;
  return bucket;
}

/**
 * The median answer time of a histogram (summed over days, missing buckets as 0), interpolated
 * linearly inside its bucket; the open last bucket gives its lower bound. null when nothing was answered.
 */
export function medianAnswerMs(buckets: readonly (number | null | undefined)[]): number | null {
  const counts = ANSWER_MS_BUCKETS.map((_, i) => Math.max(0, buckets[i] ?? 0));
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const half = total / 2;
  let below = 0;
  for (let i = 0; i < counts.length; i++) {
    if (counts[i] > 0 && below + counts[i] >= half) {
      const lower = ANSWER_MS_BUCKETS[i];
      const upper = ANSWER_MS_BUCKETS[i + 1];
      if (upper === undefined) return lower;
      return Math.round(lower + ((half - below) / counts[i]) * (upper - lower));
    }
    below += counts[i];
  }
  return ANSWER_MS_BUCKETS.at(-1)!;
}

/** The UTC day of an instant, as the Date of its midnight (what a `@db.Date` column holds). */
export function utcDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

/** YYYY-MM-DD of a UTC day, the form bound into SQL as `::date`. */
export function dayString(at: Date): string {
  return utcDay(at).toISOString().slice(0, 10);
}

/** Bits of a visitor's year of days (AnalyticsVisitorYear.days): bit i is day i of the UTC year, 0 = 1 January. */
export const YEAR_BITS = 366;

/** A year's days from `first` to `last` (UTC midnights, both in that year, included) in the bits of a year. */
export interface YearDays {
  year: number;
  /** YEAR_BITS characters '0'/'1', bound into SQL as `::bit(366)`. */
  mask: string;
  /** Every day of the year is in the mask: any row of the year matches. */
  wholeYear: boolean;
}

/**
 * The days from `first` to `last` (UTC days, included) as one mask per year they touch, oldest
 * first: what a visitor's day sets (first = last) and what a range matches in AnalyticsVisitorYear.
 */
export function yearDays(first: Date, last: Date): YearDays[] {
  const from = utcDay(first);
  const to = utcDay(last);
  const masks: YearDays[] = [];
  for (let year = from.getUTCFullYear(); year <= to.getUTCFullYear(); year++) {
    const jan1 = Date.UTC(year, 0, 1);
    const daysInYear = (Date.UTC(year + 1, 0, 1) - jan1) / DAY_MS;
    const start = year === from.getUTCFullYear() ? (from.getTime() - jan1) / DAY_MS : 0;
    const end = year === to.getUTCFullYear() ? (to.getTime() - jan1) / DAY_MS : daysInYear - 1;
    const mask = '0'.repeat(start) + '1'.repeat(end - start + 1) + '0'.repeat(YEAR_BITS - end - 1);
    masks.push({ year, mask, wholeYear: start === 0 && end === daysInYear - 1 });
  }
  return masks;
}

/** An array of `length` zeros with 1 at `index`: what one event adds to a positional array. */
export function oneAt(length: number, index: number): number[] {
  return Array.from({ length }, (_, i) => (i === index ? 1 : 0));
}

/** What one write adds to a day's row; absent counters add 0. Counters may be negative (a changed rating). */
export interface DayIncrement {
  conversations?: number;
  messages?: number;
  answered?: number;
  uniqueVisitors?: number;
  thumbsUp?: number;
  thumbsDown?: number;
  /** Added element-wise; length ANSWER_MS_BUCKETS.length. */
  answerMsBuckets?: number[];
  /** Added element-wise; length HOURS_PER_DAY. */
  hours?: number[];
}

/**
 * Adds `inc` to the chatbot's row of `day`, creating it (arrays at full length) when missing.
 * Counters never go below 0: a rating changed before its day's row existed creates it at 0.
 */
export async function addToDay(db: Db, key: { chatbotId: string; ownerId: string; day: Date }, inc: DayIncrement): Promise<void> {
  const buckets = inc.answerMsBuckets ?? new Array<number>(ANSWER_MS_BUCKETS.length).fill(0);
  const hours = inc.hours ?? new Array<number>(HOURS_PER_DAY).fill(0);
  const n = (v: number | undefined) => v ?? 0;
  await db.$executeRaw`
    INSERT INTO "AnalyticsDay" AS d ("chatbotId", "day", "ownerId", "conversations", "messages", "answered", "uniqueVisitors",
                                     "thumbsUp", "thumbsDown", "answerMsBuckets", "hours")
    VALUES (${key.chatbotId}::uuid, ${dayString(key.day)}::date, ${key.ownerId},
            GREATEST(0, ${n(inc.conversations)}::int), GREATEST(0, ${n(inc.messages)}::int), GREATEST(0, ${n(inc.answered)}::int),
            GREATEST(0, ${n(inc.uniqueVisitors)}::int), GREATEST(0, ${n(inc.thumbsUp)}::int), GREATEST(0, ${n(inc.thumbsDown)}::int),
            ${buckets}::int[], ${hours}::int[])
    ON CONFLICT ("chatbotId", "day") DO UPDATE SET
      "conversations" = GREATEST(0, d."conversations" + ${n(inc.conversations)}::int),
      "messages" = GREATEST(0, d."messages" + ${n(inc.messages)}::int),
      "answered" = GREATEST(0, d."answered" + ${n(inc.answered)}::int),
      "uniqueVisitors" = GREATEST(0, d."uniqueVisitors" + ${n(inc.uniqueVisitors)}::int),
      "thumbsUp" = GREATEST(0, d."thumbsUp" + ${n(inc.thumbsUp)}::int),
      "thumbsDown" = GREATEST(0, d."thumbsDown" + ${n(inc.thumbsDown)}::int),
      ${addArrays('answerMsBuckets', ANSWER_MS_BUCKETS.length)},
      ${addArrays('hours', HOURS_PER_DAY)}`;
}

/** `column` = stored + inserted, element-wise over `length` elements (a short or empty stored array counts as zeros). */
function addArrays(column: 'answerMsBuckets' | 'hours', length: number): Prisma.Sql {
  const col = Prisma.raw(`"${column}"`);
  return Prisma.sql`${col} = (SELECT array_agg(COALESCE(d.${col}[i], 0) + COALESCE(EXCLUDED.${col}[i], 0) ORDER BY i)
                               FROM generate_series(1, ${length}::int) AS i)`;
}

export type Rating = 'up' | 'down';

export interface RatingChange {
  chatbotId: string;
  ownerId: string;
  /** The UTC day the rated answer counts on (its message's day). */
  day: Date;
  /** The message's rating before (null: not rated) and after. */
  from: Rating | null;
  to: Rating | null;
}

/**
 * Moves a visitor's rating in the day's thumbs: +1 on `to`, −1 on `from` (same rating twice: no
 * change). Meant for the caller's transaction that stores the rating on the message, so the two
 * never disagree. In a transaction that also calls addQuestion, call applyRating first (the
 * analytics worker takes the day's row before a question group's lock), so the two never deadlock.
 */
export async function applyRating(tx: Db, change: RatingChange): Promise<void> {
  if (change.from === change.to) return;
  const delta = (r: Rating) => (change.to === r ? 1 : 0) - (change.from === r ? 1 : 0);
  await addToDay(tx, change, { thumbsUp: delta('up'), thumbsDown: delta('down') });
}
