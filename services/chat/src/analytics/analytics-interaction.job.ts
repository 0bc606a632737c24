// Consumes the chat service's own copy of ChatbotInteraction (parley.chatbot-interaction.analytics):
// each answered message is counted once in its chatbot's analytics (record-analytics.ts). Database
// errors are rethrown so BullMQ retries them with backoff; an event that can never succeed (bad
// payload, missing ids) fails at once and is logged.
import { UnrecoverableError, type Worker } from 'bullmq';
import { Code, ConnectError } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ChatbotInteractionSchema, type ChatbotInteraction } from '@parley/proto/parley/events/v1/chatbot_interaction_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import type { AnalyticsEventInput } from './record-analytics.ts';

export type AnalyticsInteractionPayload = ChatbotInteraction;

export interface AnalyticsWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (recordAnalytics bound to the database). */
  recordAnalytics: (input: AnalyticsEventInput) => Promise<unknown>;
  concurrency?: number;
}

export function startAnalyticsWorker(deps: AnalyticsWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.chatbotInteractionAnalytics,
    ChatbotInteractionSchema,
    async (event, job) => {
      try {
        await deps.recordAnalytics({
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
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
