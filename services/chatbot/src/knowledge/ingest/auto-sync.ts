// The scheduled re-sync of website entries with auto-sync on: at start and every 10 minutes, each
// one last fetched over KNOWLEDGE_SYNC_INTERVAL_MS ago gets a refresh job. The job id names the
// entry and the interval ("sync:<id>:<n>"), so every replica's sweep, and every sweep within one
// interval, queues it once; the refresh itself (ingest-entry.ts) records the fetch in lastSyncedAt.
import type { Logger } from '@parley/common/logger.ts';
import { runPeriodically } from '@parley/common/periodic.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { ENTRY_STATUS, SOURCE_TYPE } from '../knowledge-base.ts';
import { INGEST_KIND, ingestJobId, type PublishIngest } from './ingest-requests.ts';

export const SYNC_SWEEP_EVERY_MS = 10 * 60_000;
const SYNC_BATCH = 500;

export interface AutoSyncDeps {
  db: PrismaClient;
  logger: Logger;
  publishIngest: PublishIngest;
  intervalMs: number;
}

/** One sweep at `now`; returns how many refreshes were asked for. */
export async function queueDueSyncs(deps: AutoSyncDeps, now = Date.now()): Promise<number> {
  const due = await deps.db.textEntry.findMany({
    where: {
      autoSync: true,
      sourceType: SOURCE_TYPE.url,
      status: ENTRY_STATUS.ready,
      OR: [{ lastSyncedAt: null }, { lastSyncedAt: { lt: new Date(now - deps.intervalMs) } }],
    },
    select: { id: true, chatbotId: true },
    orderBy: { lastSyncedAt: 'asc' },
    take: SYNC_BATCH,
  });
  for (const entry of due) {
    await deps.publishIngest(
      { chatbotId: entry.chatbotId, entryId: entry.id, kind: INGEST_KIND.refresh },
      ingestJobId.sync(entry.id, deps.intervalMs, now),
    );
  }
  return due.length;
}

export function startAutoSync(deps: AutoSyncDeps): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const queued = await queueDueSyncs(deps);
      if (queued) deps.logger.info({ queued }, 'website entries queued for re-sync');
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'queueing website re-syncs failed; retrying later');
    } finally {
      running = false;
    }
  };
  return runPeriodically(sweep, { firstAfterMs: 10_000, everyMs: SYNC_SWEEP_EVERY_MS });
}
