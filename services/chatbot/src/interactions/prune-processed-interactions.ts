// The ids of counted ChatbotInteraction events (request ids) and ChatbotInteractionsCounted events
// (the chat service's outbox record ids) are needed only while the same event can still arrive
// again: BullMQ ignores a repeated job id for a day (completed jobs are kept that long), a failing
// job's retries end within about 20 minutes (12 attempts, exponential backoff from 500 ms), and the
// chat service's outbox relay publishes a record again about 30 s after a publish whose record
// could not be removed. Kept 7 days, they are then deleted, so the table does not grow with every
// answered message forever. Every replica prunes; the batches skip rows another replica is deleting.
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { runPeriodically } from '@parley/common/periodic.ts';

export const PROCESSED_INTERACTION_RETENTION_MS = 7 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;
/** Rows deleted per statement, so a large backlog never holds locks or a transaction for long. */
const BATCH = 5000;

/** Deletes the request ids counted before `olderThan`; returns how many went. */
export async function pruneProcessedInteractions(db: PrismaClient, olderThan: Date, batch = BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.$executeRaw`
      DELETE FROM "ProcessedInteraction"
       WHERE "requestId" IN (
         SELECT "requestId" FROM "ProcessedInteraction"
          WHERE "createdAt" < ${olderThan.toISOString()}::timestamptz
          LIMIT ${batch} FOR UPDATE SKIP LOCKED)`;
    total += deleted;
    if (deleted < batch) return total;
  }
}

/** Prunes now and then every hour until the returned function is called. */
export function startPruningProcessedInteractions(db: PrismaClient, logger: Logger): () => void {
  const prune = () =>
    pruneProcessedInteractions(db, new Date(Date.now() - PROCESSED_INTERACTION_RETENTION_MS)).then(
      (deleted) => {
        if (deleted > 0) logger.info({ deleted }, 'pruned processed interactions');
      },
      (err: Error) => logger.warn({ err: err.message }, 'pruning processed interactions failed'),
    );
  return runPeriodically(prune, { firstAfterMs: 10_000, everyMs: PRUNE_EVERY_MS });
}
