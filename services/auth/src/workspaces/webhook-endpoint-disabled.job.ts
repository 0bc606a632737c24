// Auth's worker for WebhookEndpointDisabled (queue parley.webhook-endpoint-disabled): mails the
// workspace's owners (webhook-endpoint-disabled.ts). A failure is rethrown so BullMQ retries it.
import type { Worker } from 'bullmq';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { WebhookEndpointDisabledSchema } from '@parley/proto/parley/events/v1/webhook_event_pb.js';

export function startWebhookEndpointDisabledWorker(deps: {
  redis: Redis;
  logger: Logger;
  prefix: string;
  mailOwners: (input: { ownerId: string; endpointId: string; url: string; lastError: string }) => Promise<number>;
}): Worker {
  return createWorker(
    deps.redis,
    QUEUES.webhookEndpointDisabled,
    WebhookEndpointDisabledSchema,
    async (event) => {
      await deps.mailOwners({ ownerId: event.ownerId, endpointId: event.endpointId, url: event.url, lastError: event.lastError });
    },
    { prefix: deps.prefix, logger: deps.logger },
  );
}
