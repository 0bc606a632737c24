// Consumes the chat service's UsageRecorded events: records each answer's usage once and debits
// the owner's credit. The worker takes up to USAGE_BATCH_MAX jobs at once, and the events that arrive
// while a batch is being written go together in the next one (group commit): one statement per
// batch, one update of each owner's account row per batch, however busy their chatbots. Database
// errors are rethrown so BullMQ retries them with backoff (a batch that fails is written again one
// event at a time, so one bad event fails alone); an event that can never succeed (bad payload,
// model without a price) fails at once, debiting nothing. Usage arriving after its owner deleted
// their account is dropped (logged): it must not open the account again.
import type { Worker } from 'bullmq';
import { UnrecoverableError } from '@parley/common/bullmq.ts';
import { Code, ConnectError } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { UsageRecordedSchema, type UsageRecorded } from '@parley/proto/parley/events/v1/usage_recorded_pb.js';
import { usageRecordedBatch } from '@parley/proto/event-batches.ts';
import { groupCommit } from '@parley/common/batcher.ts';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { AccountDeletedError } from '../core/deleted-account.ts';
import { parseUsage, type BatchOutcome, type ParsedUsage } from './record-usage.ts';

export type UsageRecordedPayload = UsageRecorded;

/** The jobs the worker takes at once, and so the largest batch. */
export const USAGE_BATCH_MAX = 50;

export interface UsageRecordedWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  /** The use case (recordUsageBatch bound to its dependencies): an outcome or an error per usage, in order. */
  recordUsageBatch: (usages: ParsedUsage[]) => Promise<(BatchOutcome | Error)[]>;
  concurrency?: number;
}

export function startUsageRecordedWorker(deps: UsageRecordedWorkerDeps): Worker {
  const concurrency = deps.concurrency ?? USAGE_BATCH_MAX;
  const batches = groupCommit(deps.recordUsageBatch, { max: concurrency });
  return createWorker(
    deps.redis,
    QUEUES.usageRecorded,
    UsageRecordedSchema,
    async (event, job) => {
      try {
        const usage = parseUsage({
          requestId: event.requestId,
          ownerId: event.ownerId,
          chatbotId: event.chatbotId,
          chatbotName: event.chatbotName,
          model: event.model,
          promptTokens: event.promptTokens,
          completionTokens: event.completionTokens,
          occurredAt: event.occurredAt ? timestampDate(event.occurredAt) : undefined,
          apiKeyId: event.apiKeyId,
          provider: event.provider,
          cachedPromptTokens: event.cachedPromptTokens,
          reasoningTokens: event.reasoningTokens,
          ownKey: event.ownKey,
          fallback: event.fallback,
        });
        const outcome = await batches.add(usage);
        if (outcome instanceof Error) throw outcome;
        if (outcome === 'defaulted')
          deps.logger.warn(
            { jobId: job.id, requestId: event.requestId, model: event.model.slice(0, 200) },
            "usage of a model billing has no price of: billed at the catalogue's default model's price",
          );
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
    // The chat service publishes its events in batches (ADR 29): each goes through the same path.
    { prefix: deps.prefix, logger: deps.logger, concurrency, batch: usageRecordedBatch },
  );
}
