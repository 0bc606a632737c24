// Consumes the chatbot service's ChatbotDeleted events: removes the chatbot's conversations, and
// the recent turns kept for them in Redis (delete-conversations.ts).
import type { Worker } from 'bullmq';
import { ChatbotDeletedSchema, type ChatbotDeleted } from '@parley/proto/parley/events/v1/chatbot_deleted_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import type { ChatbotConversationsDeleted } from './delete-conversations.ts';

export type ChatbotDeletedPayload = ChatbotDeleted;

export interface ChatbotDeletedWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (deleteChatbotConversations bound to the database and the recent turns). */
  deleteConversations: (chatbotId: string) => Promise<ChatbotConversationsDeleted>;
  concurrency?: number;
}

export function startChatbotDeletedWorker(deps: ChatbotDeletedWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.chatbotDeleted,
    ChatbotDeletedSchema,
    async (event) => {
      const { conversations, recentTurns } = await deps.deleteConversations(event.chatbotId);
      deps.logger.info({ chatbotId: event.chatbotId, conversations, recentTurns }, "deleted chatbot's conversations removed");
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
