// Consumes the chatbot service's ChatbotDeleted events: removes the chatbot's conversations, and
// the recent turns kept for them in Redis.
import type { Worker } from 'bullmq';
import { ChatbotDeletedSchema, type ChatbotDeleted } from '@parley/proto/parley/events/v1/chatbot_deleted_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';

export type ChatbotDeletedPayload = ChatbotDeleted;

export interface ChatbotDeletedWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (deleteChatbotConversations bound to the database). */
  deleteConversations: (chatbotId: string) => Promise<number>;
  /** Drops the chatbot's kept recent turns (recent-turns.ts); none: nothing is kept. */
  forgetRecentTurns?: (chatbotId: string) => Promise<number>;
  concurrency?: number;
}

export function startChatbotDeletedWorker(deps: ChatbotDeletedWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.chatbotDeleted,
    ChatbotDeletedSchema,
    async (event) => {
      const count = await deps.deleteConversations(event.chatbotId);
      const turns = (await deps.forgetRecentTurns?.(event.chatbotId)) ?? 0;
      deps.logger.info({ chatbotId: event.chatbotId, conversations: count, recentTurns: turns }, 'deleted chatbot\'s conversations removed');
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
