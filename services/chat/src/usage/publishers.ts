// The events an answered message produces: UsageRecorded for billing (only when the language model
// was used) and ChatbotInteraction, for this service's own analytics worker, which also counts the
// message in the chatbot's interactions (one ChatbotInteractionsCounted per chatbot and batch, ADR 23;
// it is no longer published to parley.chatbot-interaction for the chatbot service). Both carry the
// answer's request id, a server-generated UUID by which their consumers apply each once, so a
// repeated publish cannot bill or count twice; they travel in batches of the answers that ended
// together (ADR 29).
import { createHmac } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ChatbotInteractionSchema } from '@parley/proto/parley/events/v1/chatbot_interaction_pb.js';
import { UsageRecordedSchema } from '@parley/proto/parley/events/v1/usage_recorded_pb.js';
import type { BatchProducer } from '@parley/common/queues.ts';

export type UsageRecordedProducer = BatchProducer<typeof UsageRecordedSchema>;
export type ChatbotInteractionProducer = BatchProducer<typeof ChatbotInteractionSchema>;

export interface Usage {
  requestId: string;
  ownerId: string;
  chatbotId: string;
  chatbotName: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  occurredAt: Date;
  /** The developer API's key the message came through; '' for the public chat. */
  apiKeyId?: string;
  /** The catalogue's provider of `model`; absent or '' (read as openai) for an exchange stored before the catalogue. */
  provider?: string;
  cachedPromptTokens?: number;
  reasoningTokens?: number;
  /** The chatbot's chosen model failed before its first token and `model` is its fallback. */
  fallback?: boolean;
  /** Given on the workspace's own provider key: billed at the own-key fee, not the model's price. */
  ownKey?: boolean;
}

export interface Interaction {
  requestId: string;
  chatbotId: string;
  ownerId: string;
  sessionId: string;
  /** The visitor's address; only its keyed hash leaves the service. Null when the gateway could not tell. */
  clientIp: string | null;
  /** The visitor's message. */
  question: string;
  /** The knowledge answered it: the answer cited a source, or was a Q&A pair's answer. */
  answered: boolean;
  receivedAt: Date;
  /** When the answer was recorded. */
  occurredAt: Date;
  /** The chatbot's language name (english, french or chinese). */
  language: string;
  /** Why the answer could not help (core/reasons.ts); absent or null when it helped. */
  reason?: string | null;
}

/** The UsageRecorded event of an answer's usage. */
export function usageRecordedEvent(usage: Usage) {
  return create(UsageRecordedSchema, {
    requestId: usage.requestId,
    ownerId: usage.ownerId,
    chatbotId: usage.chatbotId,
    chatbotName: usage.chatbotName,
    model: usage.model,
    promptTokens: BigInt(usage.promptTokens),
    completionTokens: BigInt(usage.completionTokens),
    occurredAt: timestampFromDate(usage.occurredAt),
    apiKeyId: usage.apiKeyId ?? '',
    provider: usage.provider ?? '',
    cachedPromptTokens: BigInt(usage.cachedPromptTokens ?? 0),
    reasoningTokens: BigInt(usage.reasoningTokens ?? 0),
    fallback: usage.fallback ?? false,
    ownKey: usage.ownKey ?? false,
  });
}

export function publishUsageRecorded(producer: UsageRecordedProducer, usage: Usage): void {
  producer.publish(usageRecordedEvent(usage), usage.requestId);
}

/**
 * A visitor for analytics: HMAC-SHA256 of their address under the deployment's SESSION_SECRET (hex),
 * so unique visitors can be counted without the address being kept, and the hash cannot be reversed
 * by trying every IPv4 address without the secret. Visitors of unknown address count as one, as the
 * rate limits count them.
 */
export function visitorHash(secret: string, clientIp: string | null): string {
  return createHmac('sha256', secret)
    .update(clientIp ?? 'unknown')
    .digest('hex');
}

/**
 * Publishes each answered message's ChatbotInteraction to the analytics queue, under its request id,
 * marked as counted in the chatbot's interactions by analytics (an event of an earlier chat service,
 * also published to parley.chatbot-interaction, is not).
 */
export function chatbotInteractionPublisher(producer: ChatbotInteractionProducer, secret: string) {
  return (interaction: Interaction): void => {
    const event = create(ChatbotInteractionSchema, {
      requestId: interaction.requestId,
      chatbotId: interaction.chatbotId,
      occurredAt: timestampFromDate(interaction.occurredAt),
      ownerId: interaction.ownerId,
      sessionId: interaction.sessionId,
      visitorHash: visitorHash(secret, interaction.clientIp),
      question: interaction.question,
      answered: interaction.answered,
      answerMs: Math.max(0, interaction.occurredAt.getTime() - interaction.receivedAt.getTime()),
      receivedAt: timestampFromDate(interaction.receivedAt),
      language: interaction.language,
      interactionsViaAnalytics: true,
      reason: interaction.reason ?? '',
    });
    producer.publish(event, interaction.requestId);
  };
}
