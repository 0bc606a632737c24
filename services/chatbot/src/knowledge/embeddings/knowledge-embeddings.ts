// STUB (contract for issue 13; replaced by the embeddings work): the chatbot service's one view of
// embeddings. Without EMBEDDINGS_URL, retrieval is full-text alone and nothing is embedded.
import type { Redis } from 'ioredis';
import type { Worker } from 'bullmq';
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { ChatbotConfig } from '../../config.ts';
import { retrieve, type RetrievedChunk } from '../retrieve.ts';

export type RetrieveChunks = (input: { chatbotId: string; query: string; k: number }) => Promise<RetrievedChunk[]>;

export interface KnowledgeEmbeddings {
  /** Full-text, or hybrid (full-text and vector, fused) when an embeddings model is configured. */
  retrieve: RetrieveChunks;
  /** Called once an entry's chunks are written (or rewritten): queues their embedding; a no-op without a model. */
  entryIndexed(entry: { chatbotId: string; entryId: string }): Promise<void>;
  /** The embed worker, when workers were started and a model is configured. */
  worker?: Worker;
  close(): Promise<void>;
}

export function knowledgeEmbeddings(
  _config: ChatbotConfig,
  parts: { db: PrismaClient; search: PrismaClient; redis: Redis; logger: Logger; workers: boolean },
): KnowledgeEmbeddings {
  return {
    retrieve: (input) => retrieve(parts.search, input),
    entryIndexed: async () => {},
    close: async () => {},
  };
}
