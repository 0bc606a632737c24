// Makes sure every processing entry has its job. AddFileEntry and AddUrlEntry (and a crawl) commit
// the entry, then publish its job; when publishing fails (Redis unreachable or slow) the entry would
// wait forever. This sweep, at start and every minute, looks at entries processing for over a minute:
// one whose first job ("file:<id>" / "url:<id>") is unknown to the queue is published again under
// the same id (so a slow first publish and the sweep queue it once); one whose job has finished
// while the entry still waits (a crash between the two) is given up on, as SOURCE_FAILED. A
// re-published crawl's first page is fetched without its crawl: the owner can add the site again.
import type { Logger } from '@parley/common/logger.ts';
import { runPeriodically } from '@parley/common/periodic.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { ENTRY_STATUS, SOURCE_TYPE } from '../knowledge-base.ts';
import { SOURCE_FAILED } from '../sources/source-error.ts';
import { ingestJobId, type IngestJobState, type PublishIngest } from './ingest-requests.ts';
import { failEntry } from './write-entry.ts';

export const RELAY_AFTER_MS = 60_000;
export const RELAY_EVERY_MS = 60_000;
const RELAY_BATCH = 200;

export interface IngestRelayDeps {
  db: PrismaClient;
  logger: Logger;
  publishIngest: PublishIngest;
  jobState: IngestJobState;
}

/** One pass; returns how many entries were published again and how many given up on. */
export async function relayProcessingEntries(deps: IngestRelayDeps, olderThan: Date): Promise<{ published: number; failed: number }> {
  const waiting = await deps.db.textEntry.findMany({
    where: { status: ENTRY_STATUS.processing, updatedAt: { lt: olderThan }, sourceType: { in: [SOURCE_TYPE.file, SOURCE_TYPE.url] } },
    select: { id: true, chatbotId: true, sourceType: true },
    orderBy: { updatedAt: 'asc' },
    take: RELAY_BATCH,
  });
  let published = 0;
  let failed = 0;
  for (const entry of waiting) {
    const kind = entry.sourceType === SOURCE_TYPE.file ? 'file' : 'url';
    const jobId = ingestJobId.first(kind, entry.id);
    const state = await deps.jobState(jobId);
    if (state === 'missing') {
      await deps.publishIngest({ chatbotId: entry.chatbotId, entryId: entry.id, kind }, jobId);
      published++;
    } else if (state === 'finished') {
      deps.logger.error({ entryId: entry.id, jobId }, 'entry still processing after its job finished; marked failed');
      if ((await failEntry(deps.db, { entryId: entry.id, error: SOURCE_FAILED })).outcome === 'failed') failed++;
    }
  }
  return { published, failed };
}

/** Relays in the background (first after a few seconds, then every minute) until the returned function is called. */
export function startIngestRelay(deps: IngestRelayDeps): () => void {
  let running = false;
  const relay = async () => {
    if (running) return;
    running = true;
    try {
      const done = await relayProcessingEntries(deps, new Date(Date.now() - RELAY_AFTER_MS));
      if (done.published || done.failed) deps.logger.info(done, 'relayed waiting knowledge entries');
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'relaying waiting knowledge entries failed; retrying later');
    } finally {
      running = false;
    }
  };
  return runPeriodically(relay, { firstAfterMs: 5_000, everyMs: RELAY_EVERY_MS });
}
