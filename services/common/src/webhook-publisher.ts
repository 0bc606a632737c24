// How a service announces webhook events (docs/adr/0032-webhooks.md): only the events of owners with
// an enabled endpoint subscribed to their type (webhook-subscriptions.ts: one Redis GET per call,
// the hash read again only when it changed) go to parley.webhook-events, gathered into batch jobs
// (ADR 29). Callers hand over whole batches from background work (never a visitor's request), and
// nothing is thrown: a failure is logged with the events' ids.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { WebhookEventSchema } from '@parley/proto/parley/events/v1/webhook_event_pb.js';
import { webhookEventBatch } from '@parley/proto/event-batches.ts';
import type { Logger } from './logger.ts';
import { createBatchProducer, QUEUES } from './queues.ts';
import type { Redis } from './redis.ts';
import type { WebhookEventInput } from './webhook-events.ts';
import { webhookSubscriptions } from './webhook-subscriptions.ts';

export interface WebhookPublisher {
  /** Publishes the events someone is subscribed to; resolves once they are gathered (not yet published). */
  publish(events: readonly WebhookEventInput[]): Promise<void>;
  /** Whether an owner has an endpoint subscribed to the type (one read of the revision). */
  subscribedTo(ownerId: string, type: string): Promise<boolean>;
  /** Those of the owners (each once) with an endpoint subscribed to the type (one read of the revision). */
  subscribers(type: string, ownerIds: Iterable<string>): Promise<string[]>;
  /** Publishes what is gathered now, and resolves once it is in the queue (or logged as failed). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function webhookPublisher(redis: Redis, opts: { prefix: string; logger: Logger; waitMs?: number }): WebhookPublisher {
  const subscriptions = webhookSubscriptions(redis, opts.prefix);
  const producer = createBatchProducer(redis, QUEUES.webhookEvents, webhookEventBatch, {
    prefix: opts.prefix,
    logger: opts.logger,
    waitMs: opts.waitMs ?? 20,
    maxEvents: 100,
  });
  return {
    async publish(events) {
      if (events.length === 0) return;
      try {
        const subscribed = await subscriptions.subscribed();
        for (const e of events) {
          if (!subscribed(e.ownerId, e.type)) continue;
          producer.publish(
            create(WebhookEventSchema, {
              id: e.id,
              ownerId: e.ownerId,
              type: e.type,
              occurredAt: timestampFromDate(e.occurredAt),
              dataJson: JSON.stringify(e.data),
            }),
            e.id,
          );
        }
      } catch (err) {
        opts.logger.error({ ids: events.map((e) => e.id), err: (err as Error).message }, 'webhook events not published');
      }
    },
    async subscribedTo(ownerId, type) {
      return (await subscriptions.subscribed())(ownerId, type);
    },
    async subscribers(type, ownerIds) {
      const subscribed = await subscriptions.subscribed();
      return [...new Set(ownerIds)].filter((owner) => subscribed(owner, type));
    },
    flush: () => producer.flush(),
    close: () => producer.close(),
  };
}
