// Consumes auth's AccountDeleted events (this service's own queue of the fan-out): deletes every
// chatbot of the deleted owner. Database errors are rethrown so BullMQ retries them with backoff;
// the use case is idempotent, so a retry or a second delivery finishes what is left. An event
// without a user id can never succeed and fails at once.
import type { Worker } from 'bullmq';
import { UnrecoverableError } from '@parley/common/bullmq.ts';
import { Code, ConnectError } from '@connectrpc/connect';
import { AccountDeletedSchema, type AccountDeleted } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import type { DeleteOwnerChatbotsInput } from './delete-owner-chatbots.ts';

export type AccountDeletedPayload = AccountDeleted;

export interface AccountDeletedWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (deleteOwnerChatbots bound to its dependencies); returns how many it deleted. */
  deleteOwnerChatbots: (input: DeleteOwnerChatbotsInput) => Promise<number>;
  concurrency?: number;
}

export function startAccountDeletedWorker(deps: AccountDeletedWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.accountDeletedChatbot,
    AccountDeletedSchema,
    async (event, job) => {
      let deleted: number;
      try {
        deleted = await deps.deleteOwnerChatbots({ ownerId: event.userId });
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.InvalidArgument) {
          deps.logger.error(
            { jobId: job.id, userId: event.userId, reason: err.rawMessage },
            "deleted account's chatbots not removed: invalid event",
          );
          throw new UnrecoverableError(`AccountDeleted not applied: ${err.rawMessage}`);
        }
        throw err;
      }
      deps.logger.info({ userId: event.userId, chatbots: deleted }, "deleted account's chatbots removed");
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
