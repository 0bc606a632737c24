// The ChatbotDeleted outbox: a chatbot's deletion is recorded in the same statement that deletes it
// (delete-chatbot.ts), and the record is removed only once the event is in the queue. The owner's
// call publishes at once; when that fails (Redis unreachable or slow), the relay below publishes
// again until it succeeds, so the services that keep data about the chatbot (the chat service's
// conversations) always hear of it. A repeated publish is harmless: the job id is the chatbot's,
// and the consumers' work is idempotent.
import type { Logger } from '@parley/common/logger.ts';
import { relayOutbox, startOutboxRelay, type Outbox } from '@parley/common/outbox.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface DeletedChatbot {
  id: string;
  ownerId: string;
  deletedAt: Date;
}

export type PublishChatbotDeleted = (chatbot: DeletedChatbot) => Promise<void>;

/** Publishes the event, then removes the record; a failure leaves the record for the relay. */
export async function announceChatbotDeleted(db: PrismaClient, publish: PublishChatbotDeleted, record: DeletedChatbot): Promise<void> {
  await publish(record);
  await db.chatbotDeletedOutbox.deleteMany({ where: { chatbotId: record.id } });
}

/** The outbox of the ChatbotDeleted events, for the kit's relay. */
export function chatbotDeletedOutbox(db: PrismaClient, publish: PublishChatbotDeleted): Outbox<DeletedChatbot> {
  return {
    event: 'ChatbotDeleted',
    waiting: async (olderThan, limit) =>
      (await db.chatbotDeletedOutbox.findMany({ where: { deletedAt: { lt: olderThan } }, orderBy: { deletedAt: 'asc' }, take: limit })).map(
        (row) => ({ id: row.chatbotId, ownerId: row.ownerId, deletedAt: row.deletedAt }),
      ),
    announce: (record) => announceChatbotDeleted(db, publish, record),
  };
}

/** Announces the deletions recorded before `olderThan` that are still waiting; returns how many were published. */
export const relayChatbotDeleted = (db: PrismaClient, publish: PublishChatbotDeleted, olderThan: Date) =>
  relayOutbox(chatbotDeletedOutbox(db, publish), olderThan);

/** Relays waiting deletions in the background until the returned function is called. */
export const startChatbotDeletedRelay = (db: PrismaClient, publish: PublishChatbotDeleted, logger: Logger) =>
  startOutboxRelay(chatbotDeletedOutbox(db, publish), logger);
