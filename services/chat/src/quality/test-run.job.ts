// The quality loop's two consumers (docs/adr/0050-quality-loop.md): parley.chatbot-changed (the
// chatbot service committed a change of what a chatbot's answers read: its automatic run is
// scheduled, debounced) and the chat service's own parley.test-run (a run answered).
import type { Worker } from 'bullmq';
import { ChatbotChangedSchema, TestRunDueSchema } from '@parley/proto/parley/events/v1/quality_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';

export interface QualityWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  scheduleAutomaticRun: (chatbotId: string) => Promise<boolean>;
  runDue: (event: { runId: string; chatbotId: string }) => Promise<void>;
  /** Runs answered at once by this instance. */
  runsAtOnce: number;
}

export function startQualityWorkers(deps: QualityWorkerDeps): Worker[] {
  const opts = { prefix: deps.prefix, logger: deps.logger };
  return [
    createWorker(
      deps.redis,
      QUEUES.chatbotChanged,
      ChatbotChangedSchema,
      async (event) => {
        const scheduled = await deps.scheduleAutomaticRun(event.chatbotId);
        deps.logger.debug({ chatbotId: event.chatbotId, scheduled }, 'chatbot changed');
      },
      opts,
    ),
    createWorker(deps.redis, QUEUES.testRun, TestRunDueSchema, (event) => deps.runDue(event), { ...opts, concurrency: deps.runsAtOnce }),
  ];
}
