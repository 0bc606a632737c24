// Consumes ChatbotInteractionsCounted (parley.chatbot-interactions-counted): the chat service's
// analytics worker counts the answered messages and reports, once per chatbot and batch, how many
// were the chatbot's (ADR 23); each report is added once to the chatbot's interactions. Database
// errors are rethrown so BullMQ retries them with backoff; a bad event fails at once; an event for
// an unknown or deleted chatbot is acknowledged and ignored.
import type { Worker } from 'bullmq';
import { UnrecoverableError } from '@parley/common/bullmq.ts';
import { Code, ConnectError } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ChatbotInteractionsCountedSchema } from '@parley/proto/parley/events/v1/chatbot_interactions_counted_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import type { AddCountedInteractionsResult, CountedInteractionsInput } from './add-counted-interactions.ts';

export interface ChatbotInteractionsCountedWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (addCountedInteractions bound to its dependencies). */
  addCountedInteractions: (input: CountedInteractionsInput) => Promise<AddCountedInteractionsResult>;
  concurrency?: number;
}

export function startChatbotInteractionsCountedWorker(deps: ChatbotInteractionsCountedWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.chatbotInteractionsCounted,
    ChatbotInteractionsCountedSchema,
    async (event, job) => {
      let result: AddCountedInteractionsResult;
      try {
        result = await deps.addCountedInteractions({
          id: event.id,
          chatbotId: event.chatbotId,
          count: event.count,
          lastInteractionAt: event.lastInteractionAt ? timestampDate(event.lastInteractionAt) : undefined,
        });
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.InvalidArgument) {
          deps.logger.error(
            { jobId: job.id, id: event.id, chatbotId: event.chatbotId, reason: err.rawMessage },
            'counted interactions not added: invalid event',
          );
          throw new UnrecoverableError(`ChatbotInteractionsCounted not applied: ${err.rawMessage}`);
        }
        throw err;
      }
      if (result === 'unknownChatbot')
        deps.logger.info(
          { id: event.id, chatbotId: event.chatbotId, count: event.count },
          'counted interactions for an unknown or deleted chatbot ignored',
        );
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
