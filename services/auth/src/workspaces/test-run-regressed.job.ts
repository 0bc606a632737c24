// Auth's worker for TestRunRegressed (queue parley.test-run-regressed): mails the workspace's owners
// (test-run-regressed.ts). A failure is rethrown so BullMQ retries it.
import type { Worker } from 'bullmq';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { TestRunRegressedSchema } from '@parley/proto/parley/events/v1/quality_pb.js';
import type { TestRunRegressedInput } from './test-run-regressed.ts';

export function startTestRunRegressedWorker(deps: {
  redis: Redis;
  logger: Logger;
  prefix: string;
  mailOwners: (input: TestRunRegressedInput) => Promise<number>;
}): Worker {
  return createWorker(
    deps.redis,
    QUEUES.testRunRegressed,
    TestRunRegressedSchema,
    async (event) => {
      await deps.mailOwners({
        runId: event.runId,
        ownerId: event.ownerId,
        chatbotId: event.chatbotId,
        chatbotName: event.chatbotName,
        questions: event.questions,
        regressions: event.regressions,
      });
    },
    { prefix: deps.prefix, logger: deps.logger },
  );
}
