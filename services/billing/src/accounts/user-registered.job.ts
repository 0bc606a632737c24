// Consumes auth's UserRegistered events: opens the new owner's billing account. A late one for an
// owner who has deleted their account since is skipped: it must not open the account again.
import type { Worker } from 'bullmq';
import { UnrecoverableError } from '@parley/common/bullmq.ts';
import { Code, ConnectError } from '@connectrpc/connect';
import { UserRegisteredSchema, type UserRegistered } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { AccountDeletedError } from '../core/deleted-account.ts';
import { parseOwnerId } from '../core/owner-id.ts';

export type UserRegisteredPayload = UserRegistered;

export interface UserRegisteredWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (openAccount bound to its dependencies). */
  openAccount: (ownerId: string) => Promise<unknown>;
  concurrency?: number;
}

export function startUserRegisteredWorker(deps: UserRegisteredWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.userRegistered,
    UserRegisteredSchema,
    async (event, job) => {
      try {
        // The person's id is their personal workspace's, the owner's.
        await deps.openAccount(parseOwnerId(event.userId, 'user_id'));
      } catch (err) {
        if (err instanceof AccountDeletedError) {
          deps.logger.info({ jobId: job.id, ownerId: err.ownerId }, 'UserRegistered skipped: the owner has deleted their account');
          return;
        }
        // A payload that fails validation will fail the same way on every retry.
        if (err instanceof ConnectError && err.code === Code.InvalidArgument)
          throw new UnrecoverableError(`invalid UserRegistered: ${err.rawMessage}`);
        throw err;
      }
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
