// Consumes the chat service's UsageRecorded events: records each answer's usage once and debits
// the owner's credit. Database errors are rethrown so BullMQ retries them with backoff; an event
// that can never succeed (bad payload, model without a price) fails at once, debiting nothing.
// Usage arriving after its owner deleted their account is dropped (logged): it must not open the
// account again.
import { UnrecoverableError, type Worker } from 'bullmq';
import { Code, ConnectError } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { UsageRecordedSchema, type UsageRecorded } from '@parley/proto/parley/events/v1/usage_recorded_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { AccountDeletedError } from '../accounts/deleted-account.ts';
import type { RecordUsageInput } from './record-usage.ts';

export type UsageRecordedPayload = UsageRecorded;

export interface UsageRecordedWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (recordUsage bound to its dependencies). */
  recordUsage: (input: RecordUsageInput) => Promise<unknown>;
  concurrency?: number;
}

export function startUsageRecordedWorker(deps: UsageRecordedWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.usageRecorded,
    UsageRecordedSchema,
    async (event, job) => {
      try {
        await deps.recordUsage({
          requestId: event.requestId,
          ownerId: event.ownerId,
          chatbotId: event.chatbotId,
          chatbotName: event.chatbotName,
          model: event.model,
          promptTokens: event.promptTokens,
          completionTokens: event.completionTokens,
          occurredAt: event.occurredAt ? timestampDate(event.occurredAt) : undefined,
        });
      } catch (err) {
        if (err instanceof AccountDeletedError) {
          deps.logger.warn(
            { jobId: job.id, requestId: event.requestId, ownerId: event.ownerId },
            'usage dropped: the owner has deleted their account',
          );
          return;
        }
        if (err instanceof ConnectError && (err.code === Code.InvalidArgument || err.code === Code.FailedPrecondition)) {
          deps.logger.error(
            { jobId: job.id, requestId: event.requestId, ownerId: event.ownerId, model: event.model, reason: err.rawMessage },
            'usage not recorded: the event cannot be applied, nothing was debited',
          );
          throw new UnrecoverableError(`UsageRecorded not applied: ${err.rawMessage}`);
        }
        throw err;
      }
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency },
  );
}
