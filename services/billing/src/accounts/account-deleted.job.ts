// Consumes auth's AccountDeleted events (billing's own queue of the fan-out): removes what billing
// holds about the owner, keeping the usage ledger only as anonymised accounting records. Stripe and
// database errors are rethrown so BullMQ retries them with backoff (the use case is idempotent); an
// event that can never succeed (bad payload) fails at once, changing nothing.
import type { Worker } from 'bullmq';
import { UnrecoverableError } from '@parley/common/bullmq.ts';
import { Code, ConnectError } from '@connectrpc/connect';
import { AccountDeletedSchema, type AccountDeleted } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { parseOwnerId } from '../core/owner-id.ts';

export type AccountDeletedPayload = AccountDeleted;

export interface AccountDeletedWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (deleteAccountData bound to its dependencies). */
  deleteAccountData: (ownerId: string) => Promise<unknown>;
  concurrency?: number;
}

export function startAccountDeletedWorker(deps: AccountDeletedWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.accountDeletedBilling,
    AccountDeletedSchema,
    async (event) => {
      try {
        // The person's id is their personal workspace's, the owner's.
        await deps.deleteAccountData(parseOwnerId(event.userId, 'user_id'));
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.InvalidArgument)
          throw new UnrecoverableError(`invalid AccountDeleted: ${err.rawMessage}`);
        throw err;
      }
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
