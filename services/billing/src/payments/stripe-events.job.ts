// Consumes the gateway's StripeEventReceived jobs (one per verified webhook delivery, job id = event
// id) and applies each event once. Database errors are rethrown so BullMQ retries them with backoff;
// an event that can never be applied (malformed) fails at once, changing nothing.
import type { Worker } from 'bullmq';
import { UnrecoverableError } from '@parley/common/bullmq.ts';
import { Code, ConnectError } from '@connectrpc/connect';
import { StripeEventReceivedSchema, type StripeEventReceived } from '@parley/proto/parley/events/v1/stripe_event_received_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import type { StripeEventInput } from './apply-stripe-event.ts';

export type StripeEventReceivedPayload = StripeEventReceived;

export interface StripeEventsWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (applyStripeEvent bound to its dependencies). */
  applyStripeEvent: (input: StripeEventInput) => Promise<unknown>;
  concurrency?: number;
}

export function startStripeEventsWorker(deps: StripeEventsWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.stripeEvents,
    StripeEventReceivedSchema,
    async (event, job) => {
      try {
        await deps.applyStripeEvent({ eventId: event.eventId, type: event.type, payload: event.payload });
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.InvalidArgument) {
          deps.logger.error(
            { jobId: job.id, eventId: event.eventId, type: event.type, reason: err.rawMessage },
            'stripe event not applied: it cannot be, nothing was changed',
          );
          throw new UnrecoverableError(`StripeEventReceived not applied: ${err.rawMessage}`);
        }
        throw err;
      }
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
