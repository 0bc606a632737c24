// The embed worker (queue parley.knowledge-embed): decodes KnowledgeEmbedRequested and calls embedEntry.
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  KnowledgeEmbedRequestedSchema,
  type KnowledgeEmbedRequested,
} from '@parley/proto/parley/events/v1/knowledge_ingest_requested_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';

export type { KnowledgeEmbedRequested };

/** Embedding waits on the endpoint, not the CPU: a few jobs side by side keep it busy. */
const CONCURRENCY = 2;

/** `embed:<entryId>:<n>`: a new n for each rewrite of the entry, the same n for a repeated request. */
export const embedJobId = (entryId: string, n: string | number) => `embed:${entryId}:${n}`;

export function startKnowledgeEmbedWorker(opts: {
  redis: Redis;
  logger: Logger;
  prefix: string;
  embedEntry: (input: { chatbotId: string; entryId: string }) => Promise<unknown>;
}): Worker {
  return createWorker(
    opts.redis,
    QUEUES.knowledgeEmbed,
    KnowledgeEmbedRequestedSchema,
    (event) => opts.embedEntry({ chatbotId: event.chatbotId, entryId: event.entryId }).then(() => undefined),
    { prefix: opts.prefix, logger: opts.logger, concurrency: CONCURRENCY },
  );
}
