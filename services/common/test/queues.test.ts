import { create } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { UserRegisteredSchema, type UserRegistered } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import { ChatbotDeletedSchema } from '@parley/proto/parley/events/v1/chatbot_deleted_pb.js';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { metricsText } from '../src/metrics.ts';
import { createProducer, createWorker, QUEUES, workerTiming } from '../src/queues.ts';
import { createRedis, type Redis } from '../src/redis.ts';
import { testInfra, uniqueName } from '../src/testing/infra.ts';

let redis: Redis;
const prefix = uniqueName('tq');
const logger = createLogger('test', 'silent');

beforeAll(async () => {
  redis = createRedis((await testInfra()).redisUrl);
});

afterAll(async () => {
  const q = new Queue(QUEUES.userRegistered, { connection: redis, prefix });
  await q.obliterate({ force: true });
  await q.close();
  redis.disconnect();
});

const until = async (cond: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('queues', () => {
  it('carries a proto event from producer to worker once per job id', async () => {
    const seen: UserRegistered[] = [];
    const worker = createWorker(redis, QUEUES.userRegistered, UserRegisteredSchema, async (e) => void seen.push(e), { prefix, logger });
    const producer = createProducer(redis, QUEUES.userRegistered, UserRegisteredSchema, { prefix });
    const event = create(UserRegisteredSchema, { userId: 'u-1', email: 'a@example.com', name: 'a', occurredAt: timestampNow() });
    await producer.publish(event, 'user-registered.u-1');
    await producer.publish(event, 'user-registered.u-1');
    await until(() => seen.length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toHaveLength(1);
    expect(seen[0].email).toBe('a@example.com');
    expect(seen[0].occurredAt?.seconds).toBe(event.occurredAt?.seconds);
    await worker.close();
    await producer.close();
  });

  it('fails a job with a payload that is not the event, without retrying it', async () => {
    let calls = 0;
    const worker = createWorker(redis, QUEUES.userRegistered, UserRegisteredSchema, async () => void calls++, { prefix, logger });
    const q = new Queue(QUEUES.userRegistered, { connection: redis, prefix });
    const job = await q.add('bad', { userId: 42, unknownField: true }, { jobId: 'bad-1', attempts: 5 });
    const end = Date.now() + 10_000;
    while ((await q.getJobState(job.id!)) !== 'failed' && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    const failed = await q.getJob(job.id!);
    expect(await failed!.getState()).toBe('failed');
    expect(failed!.attemptsMade).toBe(1);
    expect(failed!.failedReason).toContain('invalid parley.events.v1.UserRegistered payload');
    expect(calls).toBe(0);
    await worker.close();
    await q.close();
  });

  it('counts the jobs it publishes, completes and fails, by queue', async () => {
    const count = async (metric: string) =>
      Number(
        (await metricsText([metric]))
          .split('\n')
          .find((l) => l.startsWith(`${metric}{queue="${QUEUES.userRegistered}"} `))
          ?.split(' ')[1] ?? 0,
      );
    const before = await Promise.all(['published', 'processed', 'failed'].map((m) => count(`parley_queue_jobs_${m}_total`)));
    let calls = 0;
    const worker = createWorker(
      redis,
      QUEUES.userRegistered,
      UserRegisteredSchema,
      async () => {
        calls++;
        if (calls === 1) throw new Error('once');
      },
      { prefix, logger },
    );
    const producer = createProducer(redis, QUEUES.userRegistered, UserRegisteredSchema, { prefix });
    const event = create(UserRegisteredSchema, { userId: 'u-2', email: 'b@example.com', name: 'b', occurredAt: timestampNow() });
    await producer.publish(event, 'user-registered.u-2');
    await producer.publish(event, 'user-registered.u-3');
    // The first attempt fails and is retried (after the queue's backoff).
    await until(async () => (await count('parley_queue_jobs_processed_total')) - before[1] === 2);
    const after = await Promise.all(['published', 'processed', 'failed'].map((m) => count(`parley_queue_jobs_${m}_total`)));
    expect(after.map((n, i) => n - before[i])).toEqual([2, 2, 1]);
    await worker.close();
    await producer.close();
  });

  it('adds the publishes of one turn in one round trip, each its own job under its own id, once', async () => {
    const gatherPrefix = uniqueName('tqg');
    const connection = createRedis((await testInfra()).redisUrl);
    const producer = createProducer(connection, QUEUES.userRegistered, UserRegisteredSchema, {
      prefix: gatherPrefix,
      retries: { attempts: 3, backoffMs: 100 },
      gatherTurn: true,
    });
    const event = (n: number) => create(UserRegisteredSchema, { userId: `u-${n}`, email: `g${n}@example.com`, name: 'g' });
    // The queue's connection ready and its scripts loaded first, so the burst below is only its adds.
    await producer.publish(event(0), 'gathered.0');
    const writes = vi.spyOn(connection.stream, 'write');
    // Five updates and one of them again, in one turn, as a burst of webhook calls read together.
    await Promise.all([1, 2, 3, 4, 5, 1].map((n) => producer.publish(event(n), `gathered.${n}`)));
    expect(writes).toHaveBeenCalledTimes(1);
    writes.mockRestore();
    // Each publish resolved once its job was in Redis: every one is there, once, with the queue's retries.
    const q = new Queue(QUEUES.userRegistered, { connection: redis, prefix: gatherPrefix });
    expect((await q.getJobCounts('waiting')).waiting).toBe(6);
    for (const n of [0, 1, 2, 3, 4, 5]) {
      const job = await q.getJob(`gathered.${n}`);
      expect((job?.data as { email: string }).email).toBe(`g${n}@example.com`);
      expect(job?.opts.attempts).toBe(3);
    }
    // A publish alone in a later turn (added alone), with an id already queued, adds nothing.
    await producer.publish(event(3), 'gathered.3');
    expect((await q.getJobCounts('waiting')).waiting).toBe(6);
    await producer.close();
    await q.obliterate({ force: true });
    await q.close();
    connection.disconnect();
  });

  it('fails every publish of a turn whose round trip failed', async () => {
    const connection = createRedis((await testInfra()).redisUrl);
    const producer = createProducer(connection, QUEUES.userRegistered, UserRegisteredSchema, {
      prefix: uniqueName('tqf'),
      gatherTurn: true,
    });
    await producer.close();
    connection.disconnect();
    const event = create(UserRegisteredSchema, { userId: 'u-f', email: 'f@example.com', name: 'f' });
    const outcomes = await Promise.allSettled([producer.publish(event, 'failed.1'), producer.publish(event, 'failed.2')]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });

  it('reports, when scraped, the depth and oldest waiting age of the queues its workers consume', async () => {
    const depthPrefix = uniqueName('tqd');
    const series = (text: string, name: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${name} `))
          ?.split(' ')[1] ?? Number.NaN,
      );
    const worker = createWorker(redis, QUEUES.chatbotDeleted, ChatbotDeletedSchema, async () => {}, { prefix: depthPrefix, logger });
    const q = new Queue(QUEUES.chatbotDeleted, { connection: redis, prefix: depthPrefix });
    await q.pause();
    const producer = createProducer(redis, QUEUES.chatbotDeleted, ChatbotDeletedSchema, { prefix: depthPrefix });
    try {
      const waiting = `parley_queue_jobs{queue="${QUEUES.chatbotDeleted}",state="waiting"}`;
      expect(series(await metricsText(), waiting)).toBe(0);
      for (const id of ['a', 'b', 'c'])
        await producer.publish(create(ChatbotDeletedSchema, { chatbotId: id, occurredAt: timestampNow() }), `chatbot-deleted.${id}`);
      const text = await metricsText();
      expect(series(text, waiting)).toBe(3);
      expect(series(text, `parley_queue_jobs{queue="${QUEUES.chatbotDeleted}",state="failed"}`)).toBe(0);
      expect(series(text, `parley_queue_oldest_waiting_age_seconds{queue="${QUEUES.chatbotDeleted}"}`)).toBeGreaterThanOrEqual(0);
      await q.resume();
      await until(async () => series(await metricsText(), waiting) === 0);
    } finally {
      await worker.close();
      await producer.close();
      await q.close();
    }
    // A worker closed: its queue is no longer the process's to report.
    expect(await metricsText()).not.toContain(`queue="${QUEUES.chatbotDeleted}",state="waiting"`);
  });

  it('waits and checks for stalled jobs as QUEUE_IDLE_WAIT_SECONDS and QUEUE_STALLED_CHECK_SECONDS say', () => {
    expect(workerTiming({})).toEqual({ idleWaitSeconds: 5, stalledCheckMs: 30_000 });
    expect(workerTiming({ QUEUE_IDLE_WAIT_SECONDS: '60', QUEUE_STALLED_CHECK_SECONDS: '120' })).toEqual({
      idleWaitSeconds: 60,
      stalledCheckMs: 120_000,
    });
    expect(() => workerTiming({ QUEUE_IDLE_WAIT_SECONDS: '0' })).toThrowError('QUEUE_IDLE_WAIT_SECONDS must be an integer from 1 to 3600');
  });
});
