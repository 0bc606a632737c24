// The request ids of counted analytics events are needed only while the same event can still
// arrive again: BullMQ ignores a repeated job id for a day (completed jobs are kept that long), and
// a failing job's retries end within about 20 minutes (12 attempts, exponential backoff from
// 500 ms). Kept 7 days, as the chatbot service keeps its ProcessedInteraction, they are then
// deleted, so the table does not grow with every answered message. Every replica prunes; the
// batches skip rows another replica is deleting.
import type { Logger } from '@parley/common/logger.ts';
import { runPeriodically } from '@parley/common/periodic.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export const PROCESSED_ANALYTICS_EVENT_RETENTION_MS = 7 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;
/** Rows deleted per statement, so a large backlog never holds locks or a transaction for long. */
const BATCH = 5000;

/** Deletes the request ids counted before `olderThan`; returns how many went. */
export async function pruneProcessedAnalyticsEvents(db: PrismaClient, olderThan: Date, batch = BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.$executeRaw`
      DELETE FROM "ProcessedAnalyticsEvent"
       WHERE "requestId" IN (
         SELECT "requestId" FROM "ProcessedAnalyticsEvent"
          WHERE "createdAt" < ${olderThan.toISOString()}::timestamptz
          LIMIT ${batch} FOR UPDATE SKIP LOCKED)`;
    total += deleted;
    if (deleted < batch) return total;
  }
}

/** Prunes now and then every hour until the returned function is called. */
export function startPruningProcessedAnalyticsEvents(db: PrismaClient, logger: Logger): () => void {
  const prune = () =>
    pruneProcessedAnalyticsEvents(db, new Date(Date.now() - PROCESSED_ANALYTICS_EVENT_RETENTION_MS)).then(
      (deleted) => {
        if (deleted > 0) logger.info({ deleted }, 'pruned processed analytics events');
      },
      (err: Error) => logger.warn({ err: err.message }, 'pruning processed analytics events failed'),
    );
  return runPeriodically(prune, { firstAfterMs: 10_000, everyMs: PRUNE_EVERY_MS });
}
