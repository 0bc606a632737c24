// Announces a deleted chatbot so services holding data about it (conversations, usage) can react.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ChatbotDeletedSchema } from '@parley/proto/parley/events/v1/chatbot_deleted_pb.js';
import { withDeadline } from '@parley/common/deadline.ts';
import type { Producer } from '@parley/common/queues.ts';
import type { DeletedChatbot } from './chatbot-deleted.outbox.ts';

export type ChatbotDeletedProducer = Producer<typeof ChatbotDeletedSchema>;

/** One job per chatbot: BullMQ ignores a repeated job id, so a retried publish cannot duplicate it. */
export const chatbotDeletedJobId = (chatbotId: string) => `chatbot-deleted.${chatbotId}`;

const PUBLISH_TIMEOUT_MS = 3000;

export async function publishChatbotDeleted(producer: ChatbotDeletedProducer, chatbot: DeletedChatbot): Promise<void> {
  const event = create(ChatbotDeletedSchema, { chatbotId: chatbot.id, ownerId: chatbot.ownerId, occurredAt: timestampFromDate(chatbot.deletedAt) });
  // The Redis client queues commands while disconnected; a deadline keeps the delete from hanging on it.
  await withDeadline(producer.publish(event, chatbotDeletedJobId(chatbot.id)), PUBLISH_TIMEOUT_MS, `publish timed out after ${PUBLISH_TIMEOUT_MS} ms`);
}
