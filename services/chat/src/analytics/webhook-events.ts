// message.created and conversation.started for webhooks (docs/adr/0032-webhooks.md), derived from the
// analytics batches, off the visitor's path: each counted message once (its request id is the event's
// id), each conversation once, when its first message is counted (the session's first analytics row).
// The publisher keeps only the events of owners subscribed to the type, asking Redis once per batch.
import { webhookEvent, type WebhookEventInput } from '@parley/common/webhook-events.ts';
import type { WebhookPublisher } from '@parley/common/webhook-publisher.ts';
import type { AnalyticsEvent, NewSession } from './record-analytics.ts';

export function analyticsWebhookEvents(webhooks: Pick<WebhookPublisher, 'publish'>) {
  return async (counted: readonly AnalyticsEvent[], newSessions: readonly NewSession[]): Promise<void> => {
    const events: WebhookEventInput[] = [];
    const firstOf = new Map<string, AnalyticsEvent>();
    for (const e of counted) {
      const key = `${e.chatbotId}|${e.sessionId}`;
      const first = firstOf.get(key);
      if (!first || e.at < first.at) firstOf.set(key, e);
    }
    for (const s of newSessions) {
      const first = firstOf.get(`${s.chatbotId}|${s.sessionId}`);
      if (!first) continue;
      events.push(
        webhookEvent('conversation.started', {
          id: `conversation.started:${s.chatbotId}:${s.sessionId}`,
          ownerId: first.ownerId,
          occurredAt: first.at,
          data: { chatbotId: s.chatbotId, conversationId: s.sessionId, startedAt: first.at.toISOString() },
        }),
      );
    }
    for (const e of counted)
      events.push(
        webhookEvent('message.created', {
          id: `message.created:${e.requestId}`,
          ownerId: e.ownerId,
          occurredAt: e.at,
          data: {
            chatbotId: e.chatbotId,
            conversationId: e.sessionId,
            requestId: e.requestId,
            question: e.question,
            answered: e.answered,
            language: e.language,
            createdAt: e.at.toISOString(),
          },
        }),
      );
    await webhooks.publish(events);
  };
}
