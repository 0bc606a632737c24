// Consumes the chat service's own delayed parley.handoff-timeout jobs: a waiting visitor whom
// nobody answered in time goes back to the bot (handoff-timeout.ts).
import type { Worker } from 'bullmq';
import { HandoffTimeoutDueSchema, type HandoffTimeoutDue } from '@parley/proto/parley/events/v1/handoff_requested_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';

export type HandoffTimeoutDuePayload = HandoffTimeoutDue;

export interface HandoffTimeoutWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (handoffTimedOut bound to its dependencies). */
  timedOut: (event: HandoffTimeoutDue) => Promise<boolean>;
  concurrency?: number;
}

export function startHandoffTimeoutWorker(deps: HandoffTimeoutWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.handoffTimeout,
    HandoffTimeoutDueSchema,
    async (event) => {
      const ended = await deps.timedOut(event);
      deps.logger.info({ conversationId: event.conversationId, ended }, ended ? 'handoff wait ran out' : 'handoff wait already over');
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
