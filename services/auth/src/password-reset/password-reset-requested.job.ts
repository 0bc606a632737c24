// Auth's own worker for reset requests: decodes the job and issues the reset (issue-reset.ts). A
// failure (database, mail server) is rethrown so BullMQ retries it with backoff.
import type { Worker } from 'bullmq';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { PasswordResetRequestedSchema, type PasswordResetRequested } from '@parley/proto/parley/events/v1/password_reset_requested_pb.js';
import type { IssueResetOutcome } from './issue-reset.ts';

export type PasswordResetRequestedPayload = PasswordResetRequested;

export interface PasswordResetRequestedWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (issueReset bound to its dependencies). */
  issueReset: (input: { email: string; jobId: string }) => Promise<IssueResetOutcome>;
  concurrency?: number;
}

export function startPasswordResetRequestedWorker(deps: PasswordResetRequestedWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.passwordResetRequested,
    PasswordResetRequestedSchema,
    async (event, job) => {
      await deps.issueReset({ email: event.email, jobId: job.id! });
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
