// Consumes the chat service's ChatbotInteraction events (parley.chatbot-interaction): counts each
// answered message once in its chatbot's interactions. The chat service no longer publishes to this
// queue: its analytics worker counts the messages and reports them per chatbot and batch
// (ChatbotInteractionsCounted, chatbot-interactions-counted.job.ts; ADR 23). This worker STAYS, so
// the jobs queued by a chat service from before that change (waiting in Redis, or retried, during
// and after an upgrade) are still counted; those events are not counted again by the analytics
// worker, which counts only the ones marked interactions_via_analytics. Database errors are
// rethrown so BullMQ retries them with backoff; a bad event fails at once; an event for a deleted
// chatbot is acknowledged and ignored.
import type { Worker } from 'bullmq';
import { UnrecoverableError } from '@parley/common/bullmq.ts';
import { Code, ConnectError } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ChatbotInteractionSchema, type ChatbotInteraction } from '@parley/proto/parley/events/v1/chatbot_interaction_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import type { RecordInteractionInput, RecordInteractionResult } from './record-interaction.ts';

export type ChatbotInteractionPayload = ChatbotInteraction;

export interface ChatbotInteractionWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (recordInteraction bound to its dependencies). */
  recordInteraction: (input: RecordInteractionInput) => Promise<RecordInteractionResult>;
  concurrency?: number;
}

export function startChatbotInteractionWorker(deps: ChatbotInteractionWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.chatbotInteraction,
    ChatbotInteractionSchema,
    async (event, job) => {
      let result: RecordInteractionResult;
      try {
        result = await deps.recordInteraction({
          requestId: event.requestId,
          chatbotId: event.chatbotId,
          occurredAt: event.occurredAt ? timestampDate(event.occurredAt) : undefined,
        });
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.InvalidArgument) {
          deps.logger.error(
            { jobId: job.id, requestId: event.requestId, chatbotId: event.chatbotId, reason: err.rawMessage },
            'interaction not counted: invalid event',
          );
          throw new UnrecoverableError(`ChatbotInteraction not applied: ${err.rawMessage}`);
        }
        throw err;
      }
      if (result === 'unknownChatbot')
        deps.logger.info(
          { requestId: event.requestId, chatbotId: event.chatbotId },
          'interaction for an unknown or deleted chatbot ignored',
        );
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
