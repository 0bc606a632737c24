// Consumes auth's UserRegistered events: opens the new owner's billing account.
import { UnrecoverableError, type Worker } from 'bullmq';
import { Code, ConnectError } from '@connectrpc/connect';
import { UserRegisteredSchema, type UserRegistered } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';

export type UserRegisteredPayload = UserRegistered;

export interface UserRegisteredWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (openAccount bound to its dependencies). */
  openAccount: (userId: string) => Promise<unknown>;
  concurrency?: number;
}

export function startUserRegisteredWorker(deps: UserRegisteredWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.userRegistered,
    UserRegisteredSchema,
    async (event) => {
      try {
        await deps.openAccount(event.userId);
      } catch (err) {
        // A payload that fails validation will fail the same way on every retry.
        if (err instanceof ConnectError && err.code === Code.InvalidArgument) throw new UnrecoverableError(`invalid UserRegistered: ${err.rawMessage}`);
        throw err;
      }
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
