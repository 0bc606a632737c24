// The events an answered message produces: UsageRecorded for billing (only when the language model
// was used) and ChatbotInteraction for the chatbot's counters. Both carry the answer's request id,
// a server-generated UUID that is also the job id, so a repeated publish cannot bill or count twice.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ChatbotInteractionSchema } from '@parley/proto/parley/events/v1/chatbot_interaction_pb.js';
import { UsageRecordedSchema } from '@parley/proto/parley/events/v1/usage_recorded_pb.js';
import type { Producer } from '@parley/common/queues.ts';

export type UsageRecordedProducer = Producer<typeof UsageRecordedSchema>;
export type ChatbotInteractionProducer = Producer<typeof ChatbotInteractionSchema>;

export interface Usage {
  requestId: string;
  ownerId: string;
  chatbotId: string;
  chatbotName: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  occurredAt: Date;
}

export interface Interaction {
  requestId: string;
  chatbotId: string;
  occurredAt: Date;
}

export function publishUsageRecorded(producer: UsageRecordedProducer, usage: Usage): Promise<void> {
  const event = create(UsageRecordedSchema, {
    requestId: usage.requestId,
    ownerId: usage.ownerId,
    chatbotId: usage.chatbotId,
    chatbotName: usage.chatbotName,
    model: usage.model,
    promptTokens: BigInt(usage.promptTokens),
    completionTokens: BigInt(usage.completionTokens),
    occurredAt: timestampFromDate(usage.occurredAt),
  });
  return producer.publish(event, usage.requestId);
}

export function publishChatbotInteraction(producer: ChatbotInteractionProducer, interaction: Interaction): Promise<void> {
  const event = create(ChatbotInteractionSchema, {
    requestId: interaction.requestId,
    chatbotId: interaction.chatbotId,
    occurredAt: timestampFromDate(interaction.occurredAt),
  });
  return producer.publish(event, interaction.requestId);
}
