// Consumes auth's WorkspaceCreated events: opens the new workspace's billing account on the free
// plan without the starting credit. A late one for a workspace deleted since is skipped: it must not
// open the account again.
import type { Worker } from 'bullmq';
import { UnrecoverableError } from '@parley/common/bullmq.ts';
import { Code, ConnectError } from '@connectrpc/connect';
import { WorkspaceCreatedSchema } from '@parley/proto/parley/events/v1/workspace_created_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { AccountDeletedError } from '../core/deleted-account.ts';

export interface WorkspaceCreatedWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (openWorkspaceAccount bound to its dependencies). */
  openWorkspaceAccount: (workspaceId: string) => Promise<unknown>;
  concurrency?: number;
}

export function startWorkspaceCreatedWorker(deps: WorkspaceCreatedWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.workspaceCreated,
    WorkspaceCreatedSchema,
    async (event, job) => {
      try {
        await deps.openWorkspaceAccount(event.workspaceId);
      } catch (err) {
        if (err instanceof AccountDeletedError) {
          deps.logger.info({ jobId: job.id, workspaceId: err.ownerId }, 'WorkspaceCreated skipped: the workspace has been deleted');
          return;
        }
        // A payload that fails validation will fail the same way on every retry.
        if (err instanceof ConnectError && err.code === Code.InvalidArgument)
          throw new UnrecoverableError(`invalid WorkspaceCreated: ${err.rawMessage}`);
        throw err;
      }
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
