// Auth's worker for HandoffRequested (queue parley.handoff-requested): mails the workspace's agents
// who chose to be told (handoff-requested.ts). A failure is rethrown so BullMQ retries it.
import type { Worker } from 'bullmq';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { HandoffRequestedSchema } from '@parley/proto/parley/events/v1/handoff_requested_pb.js';
import type { HandoffRequestedInput } from './handoff-requested.ts';

export function startHandoffRequestedWorker(deps: {
  redis: Redis;
  logger: Logger;
  prefix: string;
  mailAgents: (input: HandoffRequestedInput) => Promise<number>;
}): Worker {
  return createWorker(
    deps.redis,
    QUEUES.handoffRequested,
    HandoffRequestedSchema,
    async (event) => {
      await deps.mailAgents({
        ownerId: event.ownerId,
        conversationId: event.conversationId,
        visitorName: event.visitorName,
        lastMessage: event.lastMessage,
      });
    },
    { prefix: deps.prefix, logger: deps.logger },
  );
}
