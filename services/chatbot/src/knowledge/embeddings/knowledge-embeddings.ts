// The chatbot service's one view of embeddings (ADR 0015). Without EMBEDDINGS_URL, retrieval is
// full-text alone and nothing is embedded. With it (and EMBEDDINGS_MODEL), each entry's chunks are
// embedded by a background job once written, a sweep embeds the chunks still missing one (so
// turning a model on, or changing it, embeds the existing knowledge), and retrieval is hybrid.
import type { Redis } from 'ioredis';
import type { Worker } from 'bullmq';
import { KnowledgeEmbedRequestedSchema } from '@parley/proto/parley/events/v1/knowledge_ingest_requested_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { runPeriodically } from '@parley/common/periodic.ts';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { ChatbotConfig } from '../../config.ts';
import { retrieve, type RetrieveChunks } from '../retrieve.ts';
import { embedderFromConfig } from './embedder.ts';
import { embedEntry, entriesToEmbed } from './embed-entry.ts';
import { hybridRetrieve } from './hybrid-retrieve.ts';
import { embedJobId, startKnowledgeEmbedWorker } from './knowledge-embed.job.ts';
import { vectorIndex } from './vector-index.ts';

export interface KnowledgeEmbeddings {
  /** Full-text, or hybrid (full-text and vector, fused) when an embeddings model is configured. */
  retrieve: RetrieveChunks;
  /** Called once an entry's chunks are written (or rewritten): queues their embedding; a no-op without a model. */
  entryIndexed(entry: { chatbotId: string; entryId: string }): Promise<void>;
  /** The embed worker, when workers were started and a model is configured. */
  worker?: Worker;
  /** Stops the sweep and the embed worker (it finishes the job in hand): the process takes no new work. */
  stopBackground(): Promise<void>;
  close(): Promise<void>;
}

/** Entries queued per sweep; the next sweep takes the rest. */
export const SWEEP_ENTRIES = 1_000;
export const SWEEP_EVERY_MS = 10 * 60_000;
const FIRST_SWEEP_AFTER_MS = 5_000;

/** Throws ConfigError when EMBEDDINGS_URL is set without EMBEDDINGS_MODEL. */
export function knowledgeEmbeddings(
  config: ChatbotConfig,
  parts: { db: PrismaClient; search: PrismaClient; redis: Redis; logger: Logger; workers: boolean },
): KnowledgeEmbeddings {
  const embedder = embedderFromConfig(config);
  if (!embedder) {
    return {
      retrieve: (input) => retrieve(parts.search, input),
      entryIndexed: async () => {},
      stopBackground: async () => {},
      close: async () => {},
    };
  }
  const { db, logger } = parts;
  const producer = createProducer(parts.redis, QUEUES.knowledgeEmbed, KnowledgeEmbedRequestedSchema, { prefix: config.QUEUE_PREFIX });
  const publish = (entry: { chatbotId: string; entryId: string }, n: string | number) =>
    producer.publish({ $typeName: KnowledgeEmbedRequestedSchema.typeName, ...entry }, embedJobId(entry.entryId, n));
  const vectors = vectorIndex({ db, search: parts.search, model: embedder.model, logger });

  const worker = parts.workers
    ? startKnowledgeEmbedWorker({
        redis: parts.redis,
        logger,
        prefix: config.QUEUE_PREFIX,
        embedEntry: (input) => embedEntry({ db, embedder }, input),
      })
    : undefined;

  const sweep = async () => {
    try {
      const entries = await entriesToEmbed(db, embedder.model, SWEEP_ENTRIES);
      const n = `sweep-${Math.floor(Date.now() / SWEEP_EVERY_MS)}`;
      for (const entry of entries) await publish(entry, n);
      if (entries.length) logger.info({ entries: entries.length, model: embedder.model }, 'queued entries to embed');
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'embedding sweep failed');
    }
  };
  const stopSweep = parts.workers ? runPeriodically(sweep, { firstAfterMs: FIRST_SWEEP_AFTER_MS, everyMs: SWEEP_EVERY_MS }) : undefined;

  return {
    retrieve: hybridRetrieve({
      fullText: (input) => retrieve(parts.search, input),
      embedQuery: async (query, opts) => (await embedder.embed([query], opts))[0],
      vectorSearch: (chatbotId, query, n) => vectors.search(chatbotId, query, n),
      logger,
    }),
    async entryIndexed(entry) {
      try {
        await publish(entry, Date.now());
      } catch (err) {
        // The entry is searchable by full text already; the next sweep embeds it.
        logger.warn({ entryId: entry.entryId, err: (err as Error).message }, 'could not queue the embedding of an entry');
      }
    },
    worker,
    async stopBackground() {
      stopSweep?.();
      await worker?.close();
    },
    async close() {
      stopSweep?.();
      await worker?.close();
      await producer.close();
    },
  };
}
