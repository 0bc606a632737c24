// Announces a deleted chatbot so services holding data about it (conversations, usage) can react.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ChatbotDeletedSchema } from '@parley/proto/parley/events/v1/chatbot_deleted_pb.js';
import type { Producer } from '@parley/common/queues.ts';
import type { DeletedChatbot } from './chatbot-deleted.outbox.ts';

export type ChatbotDeletedProducer = Producer<typeof ChatbotDeletedSchema>;

/** One job per chatbot: BullMQ ignores a repeated job id, so a retried publish cannot duplicate it. */
export const chatbotDeletedJobId = (chatbotId: string) => `chatbot-deleted.${chatbotId}`;

export async function publishChatbotDeleted(producer: ChatbotDeletedProducer, chatbot: DeletedChatbot): Promise<void> {
  const event = create(ChatbotDeletedSchema, {
    chatbotId: chatbot.id,
    ownerId: chatbot.ownerId,
    occurredAt: timestampFromDate(chatbot.deletedAt),
  });
  // Fails after the kit's publish deadline, so a Redis outage cannot hang the owner's delete.
  await producer.publish(event, chatbotDeletedJobId(chatbot.id));
}
