// Analytics retention (docs/adr/0059-retention-in-every-service.md): what the workspace's analytics
// window (RetentionWindow.analyticsDays, the rule of services/common/src/retention.ts) puts past its
// end, day by day: a chatbot's days of figures (AnalyticsDay), its visitors' days (AnalyticsVisitor,
// and the days' bits in AnalyticsVisitorYear), its question groups' days (QuestionClusterDay, taken
// off the group's count) and the question groups last seen before the window (with their wordings).
// A UTC day is past the window when it ended before the cutoff's day began. In batches, SKIP LOCKED
// where rows are counted, so two replicas delete each row once and a second run deletes nothing.
// Called by the chat service's retention sweep (conversations/retention.ts) with its clock.
import type { PrismaClient } from '../generated/prisma/client.ts';
import { chatbotsWithAnalytics } from './delete-analytics.ts';
import { utcDay, YEAR_BITS, yearDays } from './aggregates.ts';

const BATCH = 1000;
const NO_DAYS = '0'.repeat(YEAR_BITS);

export interface AnalyticsRetentionCounts {
  /** Chatbot days of figures (AnalyticsDay rows). */
  analyticsDays: number;
  /** Question groups last seen before the window. */
  questionGroups: number;
}

/** The first UTC day kept by a window whose cutoff is `before` (ISO). */
const firstKeptDay = (before: string) => utcDay(new Date(before));

export async function previewAnalyticsRetention(
  db: PrismaClient,
  ownerId: string,
  before: string | null,
): Promise<AnalyticsRetentionCounts> {
  if (!before) return { analyticsDays: 0, questionGroups: 0 };
  const day = firstKeptDay(before);
  const [row] = await db.$queryRaw<{ days: bigint; groups: bigint }[]>`
    SELECT (SELECT count(*) FROM "AnalyticsDay" WHERE "ownerId" = ${ownerId} AND "day" < ${day}::date) AS "days",
           (SELECT count(*) FROM "QuestionCluster" WHERE "ownerId" = ${ownerId} AND "lastSeen" < ${before}::timestamptz) AS "groups"`;
  return { analyticsDays: Number(row!.days), questionGroups: Number(row!.groups) };
}

export async function sweepAnalyticsRetention(
  db: PrismaClient,
  ownerId: string,
  before: string,
  batch = BATCH,
): Promise<AnalyticsRetentionCounts> {
  const day = firstKeptDay(before);
  const total: AnalyticsRetentionCounts = { analyticsDays: 0, questionGroups: 0 };
  // The visitors' days first, while the chatbot days that name the workspace's chatbots are still there.
  const chatbots = await chatbotsWithAnalytics(db, ownerId);
  if (chatbots.length > 0) {
    for (;;) {
      const n = await db.$executeRaw`
        DELETE FROM "AnalyticsVisitor" WHERE ctid IN (
          SELECT ctid FROM "AnalyticsVisitor" WHERE "chatbotId" = ANY(${chatbots}::uuid[]) AND "day" < ${day}::date LIMIT ${batch})`;
      if (n < batch) break;
    }
    const year = day.getUTCFullYear();
    // Whole years before the cutoff's; in its year, the bits of the days before it are cleared.
    await db.$executeRaw`DELETE FROM "AnalyticsVisitorYear" WHERE "chatbotId" = ANY(${chatbots}::uuid[]) AND "year" < ${year}`;
    const [kept] = yearDays(day, new Date(Date.UTC(year, 11, 31)));
    await db.$executeRaw`
      UPDATE "AnalyticsVisitorYear" SET "days" = "days" & ${kept!.mask}::bit(366)
       WHERE "chatbotId" = ANY(${chatbots}::uuid[]) AND "year" = ${year} AND ("days" & ~${kept!.mask}::bit(366)) <> ${NO_DAYS}::bit(366)`;
    await db.$executeRaw`
      DELETE FROM "AnalyticsVisitorYear" WHERE "chatbotId" = ANY(${chatbots}::uuid[]) AND "year" = ${year} AND "days" = ${NO_DAYS}::bit(366)`;
  }
  for (;;) {
    const n = await db.$executeRaw`
      DELETE FROM "AnalyticsDay" WHERE ("chatbotId", "day") IN (
        SELECT "chatbotId", "day" FROM "AnalyticsDay" WHERE "ownerId" = ${ownerId} AND "day" < ${day}::date
         LIMIT ${batch} FOR UPDATE SKIP LOCKED)`;
    total.analyticsDays += n;
    if (n < batch) break;
  }
  // Groups no longer seen go whole (their days by the cascade).
  for (;;) {
    const n = await db.$executeRaw`
      DELETE FROM "QuestionCluster" WHERE "id" IN (
        SELECT "id" FROM "QuestionCluster" WHERE "ownerId" = ${ownerId} AND "lastSeen" < ${before}::timestamptz
         LIMIT ${batch} FOR UPDATE SKIP LOCKED)`;
    total.questionGroups += n;
    if (n < batch) break;
  }
  // The others lose their days past the window, and those days' questions from their count.
  for (;;) {
    const [row] = await db.$queryRaw<{ n: bigint }[]>`
      WITH doomed AS (
        SELECT d."clusterId", d."day", d."count" FROM "QuestionClusterDay" AS d
          JOIN "QuestionCluster" AS c ON c."id" = d."clusterId"
         WHERE c."ownerId" = ${ownerId} AND d."day" < ${day}::date
         LIMIT ${batch} FOR UPDATE OF d SKIP LOCKED),
      deleted AS (
        DELETE FROM "QuestionClusterDay" AS d USING doomed
         WHERE d."clusterId" = doomed."clusterId" AND d."day" = doomed."day" RETURNING d."clusterId", d."count"),
      counted AS (
        UPDATE "QuestionCluster" AS c SET "count" = GREATEST(c."count" - s.n, 0)
          FROM (SELECT "clusterId", sum("count")::int AS n FROM deleted GROUP BY 1) AS s WHERE c."id" = s."clusterId")
      SELECT count(*) AS n FROM deleted`;
    if (Number(row!.n) < batch) break;
  }
  return total;
}
