// Consumes auth's AccountDeleted events (this service's own queue of the fan-out): removes the
// deleted owner's conversations and their recent turns. Database and Redis errors are rethrown so
// BullMQ retries them with backoff; the use case is idempotent, so a retry or a second delivery
// finishes what is left. An event without a user id can never succeed and fails at once.
import type { Worker } from 'bullmq';
import { UnrecoverableError } from '@parley/common/bullmq.ts';
import { Code, ConnectError } from '@connectrpc/connect';
import { AccountDeletedSchema, type AccountDeleted } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import type { DeleteOwnerConversationsInput, OwnerConversationsDeleted } from './delete-owner-conversations.ts';

export type AccountDeletedPayload = AccountDeleted;

export interface AccountDeletedWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (deleteOwnerConversations bound to the database and the recent turns). */
  deleteOwnerConversations: (input: DeleteOwnerConversationsInput) => Promise<OwnerConversationsDeleted>;
  concurrency?: number;
}

export function startAccountDeletedWorker(deps: AccountDeletedWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.accountDeletedChat,
    AccountDeletedSchema,
    async (event, job) => {
      let deleted: OwnerConversationsDeleted;
      try {
        deleted = await deps.deleteOwnerConversations({ ownerId: event.userId });
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.InvalidArgument) {
          deps.logger.error(
            { jobId: job.id, userId: event.userId, reason: err.rawMessage },
            "deleted account's conversations not removed: invalid event",
          );
          throw new UnrecoverableError(`AccountDeleted not applied: ${err.rawMessage}`);
        }
        throw err;
      }
      deps.logger.info({ userId: event.userId, ...deleted }, "deleted account's conversations removed");
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
