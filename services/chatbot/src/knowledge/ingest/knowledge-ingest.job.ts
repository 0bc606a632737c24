// The worker of the chatbot service's own knowledge-ingest queue: decodes KnowledgeIngestRequested
// and hands it to ingestEntry (ingest-entry.ts). Errors that are not the source's fault are
// rethrown so BullMQ retries them; after INGEST_ATTEMPTS the entry is marked failed instead of
// waiting on the queue's long backoff, since the owner is looking at it.
import type { Worker } from 'bullmq';
import {
  KnowledgeIngestRequestedSchema,
  type KnowledgeIngestRequested,
} from '@parley/proto/parley/events/v1/knowledge_ingest_requested_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { INGEST_KIND, type IngestKind, type IngestRequest } from './ingest-requests.ts';

export type KnowledgeIngestPayload = KnowledgeIngestRequested;

/** Attempts before an entry is given up on (the queue's own limit is higher, for database outages while marking it). */
export const INGEST_ATTEMPTS = 3;

const KINDS = new Set<string>(Object.values(INGEST_KIND));

export function startKnowledgeIngestWorker(deps: {
  redis: Redis;
  logger: Logger;
  prefix: string;
  concurrency: number;
  ingestEntry: (request: IngestRequest, opts: { lastAttempt: boolean }) => Promise<string>;
}): Worker {
  return createWorker(
    deps.redis,
    QUEUES.knowledgeIngest,
    KnowledgeIngestRequestedSchema,
    async (event, job) => {
      if (!KINDS.has(event.kind)) {
        deps.logger.error({ jobId: job.id, kind: event.kind }, 'knowledge ingest job of an unknown kind ignored');
        return;
      }
      const lastAttempt = job.attemptsMade + 1 >= Math.min(INGEST_ATTEMPTS, job.opts.attempts ?? 1);
      const outcome = await deps.ingestEntry(
        {
          chatbotId: event.chatbotId,
          entryId: event.entryId,
          kind: event.kind as IngestKind,
          crawl: event.crawl,
          maxPages: event.maxPages,
        },
        { lastAttempt },
      );
      deps.logger.info({ jobId: job.id, entryId: event.entryId, kind: event.kind, outcome }, 'knowledge entry processed');
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
