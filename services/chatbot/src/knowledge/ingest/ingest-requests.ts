// Asking for background work on an entry: KnowledgeIngestRequested on the chatbot service's own
// queue. The job id names the work ("file:<entry>", "url:<entry>", "refresh:<entry>:<nonce>",
// "sync:<entry>:<interval>"), so the same request published twice (a retry, the relay, two replicas'
// schedules) is queued once.
import { create } from '@bufbuild/protobuf';
import {
  KnowledgeIngestRequestedSchema,
  type KnowledgeIngestRequested,
} from '@parley/proto/parley/events/v1/knowledge_ingest_requested_pb.js';
import { Queue } from '@parley/common/bullmq.ts';
import { createProducer, QUEUES, safeJobId } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';

export const INGEST_KIND = { file: 'file', url: 'url', refresh: 'refresh' } as const;
export type IngestKind = (typeof INGEST_KIND)[keyof typeof INGEST_KIND];

export interface IngestRequest {
  chatbotId: string;
  entryId: string;
  kind: IngestKind;
  crawl?: boolean;
  maxPages?: number;
}

export type PublishIngest = (request: IngestRequest, jobId: string) => Promise<void>;

export const ingestJobId = {
  /** The one job that turns a new (processing) entry into a ready or failed one. */
  first: (kind: 'file' | 'url', entryId: string) => `${kind}:${entryId}`,
  /** An owner's refresh: every click is its own request. */
  refresh: (entryId: string, now = Date.now()) => `refresh:${entryId}:${now}`,
  /** A scheduled re-sync: one per entry and interval, whichever replica asks. */
  sync: (entryId: string, intervalMs: number, now = Date.now()) => `sync:${entryId}:${Math.floor(now / intervalMs)}`,
};

/** Whether a job is still to run (waiting, delayed, active), has run (completed, failed) or is unknown to the queue. */
export type JobState = 'pending' | 'finished' | 'missing';
export type IngestJobState = (jobId: string) => Promise<JobState>;

export interface IngestProducer {
  publish: PublishIngest;
  jobState: IngestJobState;
  close: () => Promise<void>;
}

export function ingestProducer(redis: Redis, prefix: string): IngestProducer {
  const producer = createProducer(redis, QUEUES.knowledgeIngest, KnowledgeIngestRequestedSchema, { prefix });
  const queue = new Queue(QUEUES.knowledgeIngest, { connection: redis, prefix });
  return {
    jobState: async (jobId) => {
      const job = await queue.getJob(safeJobId(jobId));
      if (!job) return 'missing';
      const state = await job.getState();
      return state === 'completed' || state === 'failed' ? 'finished' : state === 'unknown' ? 'missing' : 'pending';
    },
    publish: (request, jobId) =>
      producer.publish(
        create(KnowledgeIngestRequestedSchema, {
          chatbotId: request.chatbotId,
          entryId: request.entryId,
          kind: request.kind,
          crawl: request.crawl ?? false,
          maxPages: request.maxPages ?? 0,
        }),
        jobId,
      ),
    close: async () => {
      await producer.close();
      await queue.close();
    },
  };
}

export type { KnowledgeIngestRequested };
