// Events published in batches (ADR 29): one job for the events gathered together, read beside single
// events by a worker given the batch message.
import { create, fromJson, type JsonValue } from '@bufbuild/protobuf';
import { UsageRecordedSchema, type UsageRecorded } from '@parley/proto/parley/events/v1/usage_recorded_pb.js';
import { usageRecordedBatch } from '@parley/proto/event-batches.ts';
import { Queue, UnrecoverableError } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../src/logger.ts';
import { createBatchProducer, createProducer, createWorker, QUEUES } from '../src/queues.ts';
import { createRedis, type Redis } from '../src/redis.ts';
import { testInfra, uniqueName } from '../src/testing/infra.ts';

let redis: Redis;
const logger = createLogger('test', 'silent');
const queues: Queue[] = [];

beforeAll(async () => {
  redis = createRedis((await testInfra()).redisUrl);
});

afterAll(async () => {
  for (const q of queues) {
    await q.obliterate({ force: true });
    await q.close();
  }
  redis.disconnect();
});

/** A queue of its own for one test. */
function freshQueue() {
  const prefix = uniqueName('tbq');
  const queue = new Queue(QUEUES.usageRecorded, { connection: redis, prefix });
  queues.push(queue);
  return { prefix, queue };
}

const usage = (requestId: string) => create(UsageRecordedSchema, { requestId, ownerId: 'owner-1', model: 'gpt-4o-mini', promptTokens: 3n });

const batchedIds = async (queue: Queue) =>
  (await queue.getJobs(['waiting', 'active', 'completed', 'failed'])).map((j) =>
    j.name === usageRecordedBatch.schema.typeName
      ? usageRecordedBatch.unwrap(fromJson(usageRecordedBatch.schema, j.data as JsonValue)).map((u) => u.requestId)
      : [(j.data as { requestId: string }).requestId],
  );

const until = async (cond: () => boolean | Promise<boolean>, ms = 10_000) => {
  for (const end = Date.now() + ms; !(await cond()); await new Promise((r) => setTimeout(r, 20)))
    if (Date.now() > end) throw new Error('condition not met in time');
};

describe('a batch producer', () => {
  it('publishes the events gathered within its wait as one job of the batch message, in order', async () => {
    const { prefix, queue } = freshQueue();
    const producer = createBatchProducer(redis, QUEUES.usageRecorded, usageRecordedBatch, { prefix, waitMs: 30, maxEvents: 100, logger });
    for (const id of ['a', 'b', 'c']) producer.publish(usage(id), id);
    expect(await queue.count()).toBe(0);
    await until(async () => (await queue.count()) === 1);
    expect(await batchedIds(queue)).toEqual([['a', 'b', 'c']]);
    producer.publish(usage('d'), 'd');
    await producer.close();
    expect((await batchedIds(queue)).sort()).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('publishes a full batch at once, without waiting', async () => {
    const { prefix, queue } = freshQueue();
    const producer = createBatchProducer(redis, QUEUES.usageRecorded, usageRecordedBatch, { prefix, waitMs: 60_000, maxEvents: 2, logger });
    for (const id of ['a', 'b', 'c']) producer.publish(usage(id), id);
    await until(async () => (await queue.count()) === 1);
    expect(await batchedIds(queue)).toEqual([['a', 'b']]);
    await producer.flush();
    expect((await batchedIds(queue)).sort()).toEqual([['a', 'b'], ['c']]);
    await producer.close();
  });

  it('adds the same events once: the job id is their ids', async () => {
    const { prefix, queue } = freshQueue();
    for (let i = 0; i < 2; i++) {
      const producer = createBatchProducer(redis, QUEUES.usageRecorded, usageRecordedBatch, {
        prefix,
        waitMs: 60_000,
        maxEvents: 100,
        logger,
      });
      for (const id of ['a', 'b']) producer.publish(usage(id), id);
      await producer.close();
    }
    expect(await batchedIds(queue)).toEqual([['a', 'b']]);
  });

  it('logs a batch it cannot publish with every id it carried, and throws nothing', async () => {
    const unreachable = createRedis('redis://127.0.0.1:1');
    unreachable.on('error', () => {});
    const logged: { ids?: string[]; msg: string }[] = [];
    const capture = { error: (fields: { ids?: string[] }, msg: string) => logged.push({ ...fields, msg }) } as unknown as Logger;
    const producer = createBatchProducer(unreachable, QUEUES.usageRecorded, usageRecordedBatch, {
      prefix: uniqueName('tbq'),
      waitMs: 1,
      maxEvents: 100,
      logger: capture,
    });
    producer.publish(usage('lost-1'), 'lost-1');
    producer.publish(usage('lost-2'), 'lost-2');
    await producer.flush();
    expect(logged).toEqual([expect.objectContaining({ ids: ['lost-1', 'lost-2'], msg: 'publishing a batch of events failed' })]);
    unreachable.disconnect();
  }, 20_000);
});

describe('a worker given the batch message', () => {
  it('hands each event of a batch job to the handler, and single events as before', async () => {
    const { prefix } = freshQueue();
    const seen: string[] = [];
    const worker = createWorker(redis, QUEUES.usageRecorded, UsageRecordedSchema, async (e) => void seen.push(e.requestId), {
      prefix,
      logger,
      batch: usageRecordedBatch,
    });
    const batches = createBatchProducer(redis, QUEUES.usageRecorded, usageRecordedBatch, {
      prefix,
      waitMs: 60_000,
      maxEvents: 100,
      logger,
    });
    const single = createProducer(redis, QUEUES.usageRecorded, UsageRecordedSchema, { prefix });
    for (const id of ['a', 'b', 'c']) batches.publish(usage(id), id);
    await batches.close();
    await single.publish(usage('d'), 'd');
    await until(() => seen.length === 4);
    expect(seen.sort()).toEqual(['a', 'b', 'c', 'd']);
    await worker.close();
    await single.close();
  });

  it('leaves an event that can never be applied, applies the others and completes the job; any other failure retries the whole job', async () => {
    const { prefix, queue } = freshQueue();
    const applied: string[] = [];
    let failOnce = true;
    const worker = createWorker(
      redis,
      QUEUES.usageRecorded,
      UsageRecordedSchema,
      async (e: UsageRecorded) => {
        if (e.requestId === 'never') throw new UnrecoverableError('no price for this model');
        if (e.requestId === 'later' && failOnce) {
          failOnce = false;
          throw new Error('the database is restarting');
        }
        applied.push(e.requestId);
      },
      { prefix, logger, batch: usageRecordedBatch },
    );
    const batches = createBatchProducer(redis, QUEUES.usageRecorded, usageRecordedBatch, {
      prefix,
      waitMs: 60_000,
      maxEvents: 100,
      logger,
    });
    for (const id of ['ok', 'never', 'later']) batches.publish(usage(id), id);
    await batches.close();
    const [job] = await queue.getJobs(['waiting', 'active', 'delayed', 'completed']);
    await until(async () => (await queue.getJobState(job.id!)) === 'completed');
    // First attempt: 'ok' applied, 'later' failed; the retry applies both again (the consumer's
    // idempotence makes that harmless), and 'never' is never applied.
    expect(applied.sort()).toEqual(['later', 'ok', 'ok']);
    expect((await queue.getJob(job.id!))!.attemptsMade).toBe(2);
    await worker.close();
  });
});
