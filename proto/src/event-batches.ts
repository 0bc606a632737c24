// The batch messages of the queues whose events are published in batches (ADR 29), with how a
// batch wraps and unwraps its events: the one definition the producer (chat) and the consumers
// (billing's usage worker, chat's analytics worker) share. The shape is the kit's EventBatch
// (services/common/src/queues.ts).
import { create } from '@bufbuild/protobuf';
import { ChatbotInteractionBatchSchema, type ChatbotInteraction } from '../gen/parley/events/v1/chatbot_interaction_pb.js';
import { UsageRecordedBatchSchema, type UsageRecorded } from '../gen/parley/events/v1/usage_recorded_pb.js';
import { WebhookEventBatchSchema, type WebhookEvent } from '../gen/parley/events/v1/webhook_event_pb.js';

export const usageRecordedBatch = {
  schema: UsageRecordedBatchSchema,
  wrap: (usages: UsageRecorded[]) => create(UsageRecordedBatchSchema, { usages }),
  unwrap: (batch: { usages: UsageRecorded[] }) => batch.usages,
};

export const chatbotInteractionBatch = {
  schema: ChatbotInteractionBatchSchema,
  wrap: (interactions: ChatbotInteraction[]) => create(ChatbotInteractionBatchSchema, { interactions }),
  unwrap: (batch: { interactions: ChatbotInteraction[] }) => batch.interactions,
};

export const webhookEventBatch = {
  schema: WebhookEventBatchSchema,
  wrap: (events: WebhookEvent[]) => create(WebhookEventBatchSchema, { events }),
  unwrap: (batch: { events: WebhookEvent[] }) => batch.events,
};
