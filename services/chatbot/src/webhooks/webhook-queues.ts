// The webhooks' queues on the chatbot service's side: the events it consumes and fans out
// (parley.webhook-events, single or in batches), the attempts of its deliveries (its own
// parley.webhook-deliveries, retried with exponential backoff), and the WebhookEndpointDisabled
// notices it publishes for auth (parley.webhook-endpoint-disabled).
import { create, type JsonValue } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Worker } from 'bullmq';
import { UnrecoverableError } from '@parley/common/bullmq.ts';
import {
  WebhookDeliveryRequestedSchema,
  WebhookEndpointDisabledSchema,
  WebhookEventSchema,
} from '@parley/proto/parley/events/v1/webhook_event_pb.js';
import { webhookEventBatch } from '@parley/proto/event-batches.ts';
import type { Logger } from '@parley/common/logger.ts';
import { createProducer, createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import type { AttemptOutcome, AttemptRequest, EndpointDisabledNotice } from './deliver.ts';
import type { IncomingWebhookEvent } from './fan-out.ts';

export const deliveryJobId = (deliveryId: string, round: number) => `${deliveryId}:${round}`;

export interface DeliveryQueue {
  request: (deliveryId: string, round: number) => Promise<void>;
  close: () => Promise<void>;
}

export function deliveryQueue(redis: Redis, prefix: string, retries: { attempts: number; backoffMs: number }): DeliveryQueue {
  const producer = createProducer(redis, QUEUES.webhookDeliveries, WebhookDeliveryRequestedSchema, { prefix, retries });
  return {
    request: (deliveryId, round) =>
      producer.publish(create(WebhookDeliveryRequestedSchema, { deliveryId, round }), deliveryJobId(deliveryId, round)),
    close: () => producer.close(),
  };
}

export function endpointDisabledPublisher(redis: Redis, prefix: string) {
  const producer = createProducer(redis, QUEUES.webhookEndpointDisabled, WebhookEndpointDisabledSchema, { prefix });
  return {
    publish: (n: EndpointDisabledNotice) =>
      producer.publish(
        create(WebhookEndpointDisabledSchema, {
          endpointId: n.endpointId,
          ownerId: n.ownerId,
          url: n.url,
          disabledAt: timestampFromDate(n.disabledAt),
          lastError: n.lastError,
        }),
        `${n.endpointId}:${n.disabledAt.getTime()}`,
      ),
    close: () => producer.close(),
  };
}

export function startWebhookDeliveryWorker(deps: {
  redis: Redis;
  logger: Logger;
  prefix: string;
  concurrency: number;
  attempt: (req: AttemptRequest) => Promise<AttemptOutcome>;
}): Worker {
  return createWorker(
    deps.redis,
    QUEUES.webhookDeliveries,
    WebhookDeliveryRequestedSchema,
    async (event, job) => {
      await deps.attempt({
        deliveryId: event.deliveryId,
        round: event.round,
        attempt: job.attemptsMade + 1,
        maxAttempts: job.opts.attempts ?? 1,
      });
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}

export function startWebhookEventsWorker(deps: {
  redis: Redis;
  logger: Logger;
  prefix: string;
  fanOut: (events: IncomingWebhookEvent[]) => Promise<unknown>;
}): Worker {
  return createWorker(
    deps.redis,
    QUEUES.webhookEvents,
    WebhookEventSchema,
    async (event) => {
      let data: JsonValue;
      try {
        data = JSON.parse(event.dataJson) as JsonValue;
      } catch {
        throw new UnrecoverableError(`webhook event ${event.id}: data_json is not JSON`);
      }
      if (!event.id || !event.ownerId) throw new UnrecoverableError('webhook event without id or owner');
      await deps.fanOut([
        {
          id: event.id,
          ownerId: event.ownerId,
          type: event.type,
          occurredAt: event.occurredAt ? timestampDate(event.occurredAt) : new Date(),
          data,
        },
      ]);
    },
    { prefix: deps.prefix, logger: deps.logger, batch: webhookEventBatch },
  );
}
