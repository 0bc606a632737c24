// Consumes the chat service's own copy of ChatbotInteraction (parley.chatbot-interaction.analytics):
// each answered message is counted once in its chatbot's analytics (record-analytics.ts), and in its
// chatbot's interactions through one ChatbotInteractionsCounted event per chatbot and batch (ADR 23),
// so the chatbot's counter lags the answer by up to BATCH_WAIT_MS too. The
// worker takes up to BATCH_SIZE jobs at once and counts the events that arrive together in one
// batch (one transaction), so a busy chatbot's analytics cost a few statements per batch instead of
// about ten per message, next to the answers on the same cores. A batch's database error fails each
// of its jobs, which BullMQ retries with backoff (each event is counted once whatever the retries);
// an event that can never succeed (bad payload, missing ids) fails at once on its own and is logged.
import type { Worker } from 'bullmq';
import { UnrecoverableError } from '@parley/common/bullmq.ts';
import { Code, ConnectError } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ChatbotInteractionSchema, type ChatbotInteraction } from '@parley/proto/parley/events/v1/chatbot_interaction_pb.js';
import { chatbotInteractionBatch } from '@parley/proto/event-batches.ts';
import type { Logger } from '@parley/common/logger.ts';
import { batcher } from '@parley/common/batcher.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { parseAnalyticsEvent, type AnalyticsEvent } from './record-analytics.ts';

export type AnalyticsInteractionPayload = ChatbotInteraction;

export interface AnalyticsWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (recordAnalyticsBatch bound to the database). */
  recordAnalytics: (batch: AnalyticsEvent[]) => Promise<unknown>;
  /** Jobs taken at once, and so the largest batch. */
  concurrency?: number;
  /** How long the first event of a batch waits for others. */
  batchWaitMs?: number;
}

/** The largest batch (and the jobs the worker takes at once). */
export const BATCH_SIZE = 50;
/**
 * A quiet chatbot's event is counted within this; a busy one's batches fill before it. Half a second
 * is nothing to an owner reading figures, and it is what keeps the consumer out of the answers' way:
 * `BENCH_PHASES=consumers node bench/public-chat.ts` measured running vs paused 227 vs 227 requests/s
 * and one visitor's p50 +0.7 ms at 500 ms, against −8 % and +2.6 ms at 25 ms (docs/benchmarks.md).
 */
export const BATCH_WAIT_MS = 500;

export function startAnalyticsWorker(deps: AnalyticsWorkerDeps): Worker {
  const concurrency = deps.concurrency ?? BATCH_SIZE;
  const batches = batcher(deps.recordAnalytics, { size: concurrency, waitMs: deps.batchWaitMs ?? BATCH_WAIT_MS });
  return createWorker(
    deps.redis,
    QUEUES.chatbotInteractionAnalytics,
    ChatbotInteractionSchema,
    async (event, job) => {
      let parsed: AnalyticsEvent;
      try {
        parsed = parseAnalyticsEvent({
          requestId: event.requestId,
          chatbotId: event.chatbotId,
          ownerId: event.ownerId,
          sessionId: event.sessionId,
          visitorHash: event.visitorHash,
          question: event.question,
          answered: event.answered,
          answerMs: event.answerMs,
          receivedAt: event.receivedAt ? timestampDate(event.receivedAt) : undefined,
          occurredAt: event.occurredAt ? timestampDate(event.occurredAt) : undefined,
          language: event.language,
          interactionsViaAnalytics: event.interactionsViaAnalytics,
          reason: event.reason,
        });
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.InvalidArgument) {
          deps.logger.error(
            { jobId: job.id, requestId: event.requestId, chatbotId: event.chatbotId, reason: err.rawMessage },
            'analytics not recorded: invalid event',
          );
          throw new UnrecoverableError(`ChatbotInteraction not counted in analytics: ${err.rawMessage}`);
        }
        throw err;
      }
      await batches.add(parsed);
    },
    // The chat service publishes its events in batches (ADR 29): each goes through the same path.
    { prefix: deps.prefix, logger: deps.logger, concurrency, batch: chatbotInteractionBatch },
  );
}
