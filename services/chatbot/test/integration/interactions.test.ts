// Interaction counting across a real BullMQ queue into the real database: each answered message
// counted once in its chatbot, whatever the duplicates, concurrency and deleted chatbots. Two paths:
// ChatbotInteractionsCounted, a count per chatbot from the chat service's analytics batches (ADR 23),
// and the per-message ChatbotInteraction, which the chat service no longer publishes but whose
// queued jobs are still counted.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type Job } from 'bullmq';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ChatbotInteractionSchema } from '@parley/proto/parley/events/v1/chatbot_interaction_pb.js';
import { ChatbotInteractionsCountedSchema } from '@parley/proto/parley/events/v1/chatbot_interactions_counted_pb.js';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { PROCESSED_INTERACTION_RETENTION_MS, pruneProcessedInteractions } from '../../src/interactions/prune-processed-interactions.ts';
import { recordInteraction } from '../../src/interactions/record-interaction.ts';
import { addCountedInteractions } from '../../src/interactions/add-counted-interactions.ts';
import { createChatbotService } from '../../src/service.ts';
import { logger, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';
import { jobSettled } from '@parley/common/testing/jobs.ts';

let svc: TestChatbotService;
let producer: Producer<typeof ChatbotInteractionSchema>;
let countedProducer: Producer<typeof ChatbotInteractionsCountedSchema>;

beforeAll(async () => {
  svc = await startChatbotService();
  producer = createProducer(svc.redis, QUEUES.chatbotInteraction, ChatbotInteractionSchema, { prefix: svc.config.QUEUE_PREFIX });
  countedProducer = createProducer(svc.redis, QUEUES.chatbotInteractionsCounted, ChatbotInteractionsCountedSchema, {
    prefix: svc.config.QUEUE_PREFIX,
  });
});

afterAll(async () => {
  await producer?.close();
  await countedProducer?.close();
  await svc?.stop();
});

const interaction = (requestId: string, chatbotId: string, occurredAt = new Date()) =>
  create(ChatbotInteractionSchema, { requestId, chatbotId, occurredAt: timestampFromDate(occurredAt) });

const worker = () => svc.parts.chatbotInteractionWorker!;

async function newChatbot(): Promise<string> {
  const { chatbot } = await svc.client.createChatbot({ ownerId: newOwner('interactions'), name: 'Counter' });
  return chatbot!.id;
}

const stats = async (chatbotId: string) => {
  const { interactions, lastInteraction } = await svc.parts.prisma.chatbot.findUniqueOrThrow({ where: { id: chatbotId } });
  return { interactions, lastInteraction };
};

const countedEvent = (id: string, chatbotId: string, count: number, lastInteractionAt = new Date()) =>
  create(ChatbotInteractionsCountedSchema, { id, chatbotId, count, lastInteractionAt: timestampFromDate(lastInteractionAt) });

const countedWorker = () => svc.parts.interactionsCountedWorker!;

const addCounted = (id: string, chatbotId: string, count: number, lastInteractionAt = new Date()) =>
  addCountedInteractions({ db: svc.parts.prisma }, { id, chatbotId, count, lastInteractionAt });

describe('ChatbotInteractionsCounted (a count per chatbot from an analytics batch)', () => {
  it('adds the count and sets the last interaction time', async () => {
    const chatbotId = await newChatbot();
    const at = new Date('2026-02-03T04:05:06.789Z');
    const id = randomUUID();
    const settled = jobSettled(countedWorker(), id);
    await countedProducer.publish(countedEvent(id, chatbotId, 7, at), id);
    expect((await settled).state).toBe('completed');
    expect(await stats(chatbotId)).toEqual({ interactions: 7, lastInteraction: at });
  });

  it('adds a redelivered count once: the same job twice, another job id, the use case called again', async () => {
    const chatbotId = await newChatbot();
    const at = new Date('2026-02-03T10:00:00.000Z');
    const id = randomUUID();
    const first = jobSettled(countedWorker(), id);
    await countedProducer.publish(countedEvent(id, chatbotId, 3, at), id);
    await countedProducer.publish(countedEvent(id, chatbotId, 3, at), id); // BullMQ ignores the repeated job id
    expect((await first).state).toBe('completed');

    // The relay publishing the record again after BullMQ forgot the first job (or under another id).
    const again = jobSettled(countedWorker(), `${id}.again`);
    await countedProducer.publish(countedEvent(id, chatbotId, 3, at), `${id}.again`);
    expect((await again).state).toBe('completed');

    expect(await addCounted(id, chatbotId, 3, at)).toBe('duplicate');
    expect(await stats(chatbotId)).toEqual({ interactions: 3, lastInteraction: at });
  });

  it('adds 20 concurrent deliveries of the same count once, through the use case and through the queue', async () => {
    const chatbotId = await newChatbot();
    const id = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, () => addCounted(id, chatbotId, 5)));
    expect(results.filter((r) => r === 'counted')).toHaveLength(1);
    expect(results.filter((r) => r === 'duplicate')).toHaveLength(19);
    expect((await stats(chatbotId)).interactions).toBe(5);

    // The same event as 20 jobs of their own, taken by the worker side by side.
    const queued = randomUUID();
    const jobIds = Array.from({ length: 20 }, (_, i) => `${queued}.${i}`);
    const left = new Set(jobIds);
    const settled = new Promise<void>((resolve) => {
      const onSettled = (job: Job | undefined) => {
        if (job?.id) left.delete(job.id);
        if (left.size > 0) return;
        countedWorker().off('completed', onSettled).off('failed', onSettled);
        resolve();
      };
      countedWorker().on('completed', onSettled).on('failed', onSettled);
    });
    await Promise.all(jobIds.map((jobId) => countedProducer.publish(countedEvent(queued, chatbotId, 4), jobId)));
    await settled;
    const queue = new Queue(QUEUES.chatbotInteractionsCounted, { connection: svc.redis, prefix: svc.config.QUEUE_PREFIX });
    try {
      expect(await Promise.all(jobIds.map((jobId) => queue.getJobState(jobId)))).toEqual(new Array(20).fill('completed'));
    } finally {
      await queue.close();
    }
    expect((await stats(chatbotId)).interactions).toBe(9);
  });

  it('adds many counts of one chatbot at once, and keeps the latest time whatever the order', async () => {
    const chatbotId = await newChatbot();
    const base = Date.parse('2026-04-01T00:00:00.000Z');
    const times = Array.from({ length: 40 }, (_, i) => new Date(base + ((i * 37) % 40) * 1000));
    const latest = new Date(Math.max(...times.map((t) => t.getTime())));
    const counts = times.map((_, i) => 1 + (i % 5));
    await Promise.all(
      times.map((at, i) =>
        countedProducer.publish(countedEvent(`counted-many-${chatbotId}-${i}`, chatbotId, counts[i], at), `counted-many-${chatbotId}-${i}`),
      ),
    );
    const total = counts.reduce((a, b) => a + b, 0);
    await expect.poll(async () => (await stats(chatbotId)).interactions, { timeout: 15_000 }).toBe(total);
    expect(await stats(chatbotId)).toEqual({ interactions: total, lastInteraction: latest });
    // A late batch never moves the last interaction back.
    expect(await addCounted(randomUUID(), chatbotId, 1, new Date(base - 86_400_000))).toBe('counted');
    expect(await stats(chatbotId)).toEqual({ interactions: total + 1, lastInteraction: latest });
  });

  it('adds to what per-message events counted', async () => {
    const chatbotId = await newChatbot();
    const at = new Date('2026-06-01T00:00:00.000Z');
    expect(await recordInteraction({ db: svc.parts.prisma }, { requestId: randomUUID(), chatbotId, occurredAt: at })).toBe('counted');
    expect(await addCounted(randomUUID(), chatbotId, 4, new Date(at.getTime() - 1000))).toBe('counted');
    expect(await stats(chatbotId)).toEqual({ interactions: 5, lastInteraction: at });
  });

  it('acknowledges and ignores a count for a deleted chatbot, an unknown one, or an id that is not a UUID', async () => {
    const ownerId = newOwner('deleted');
    const { chatbot } = await svc.client.createChatbot({ ownerId, name: 'Gone' });
    await svc.client.deleteChatbot({ ownerId, chatbotId: chatbot!.id });
    for (const chatbotId of [chatbot!.id, randomUUID(), 'not-a-chatbot']) {
      const id = randomUUID();
      const settled = jobSettled(countedWorker(), id);
      await countedProducer.publish(countedEvent(id, chatbotId, 2), id);
      const { state, job } = await settled;
      expect(state).toBe('completed');
      expect(job.attemptsMade).toBe(1);
    }
    expect(await svc.parts.prisma.chatbot.count({ where: { id: chatbot!.id } })).toBe(0);
    const known = randomUUID();
    expect(await addCounted(known, randomUUID(), 2)).toBe('unknownChatbot');
    expect(await addCounted(known, randomUUID(), 2)).toBe('duplicate');
  });

  it.each([
    ['an empty id', { id: '' }, /id is required/],
    ['a count of 0', { count: 0 }, /count must be/],
    ['a negative count', { count: -3 }, /count must be/],
    ['no last interaction time', { lastInteractionAt: undefined }, /last_interaction_at is required/],
  ])('fails an event with %s at once and counts nothing', async (label, overrides, message) => {
    const chatbotId = await newChatbot();
    const jobId = `counted-bad-${label.replace(/\W+/g, '-')}`;
    const settled = jobSettled(countedWorker(), jobId);
    await countedProducer.publish({ ...countedEvent(jobId, chatbotId, 2), ...overrides }, jobId);
    const { state, job, error } = await settled;
    expect(state).toBe('failed');
    expect(error?.name).toBe('UnrecoverableError');
    expect(error?.message).toMatch(message);
    expect(job.attemptsMade).toBe(1);
    expect(await stats(chatbotId)).toEqual({ interactions: 0, lastInteraction: null });
  });
});

// The per-message path: the chat service no longer publishes it, the jobs queued before are still counted.
describe('ChatbotInteraction', () => {
  it('counts one interaction and sets the last interaction time', async () => {
    const chatbotId = await newChatbot();
    expect(await stats(chatbotId)).toEqual({ interactions: 0, lastInteraction: null });
    const at = new Date('2026-02-03T04:05:06.789Z');
    const settled = jobSettled(worker(), 'int-one');
    await producer.publish(interaction('int-one', chatbotId, at), 'int-one');
    expect((await settled).state).toBe('completed');
    expect(await stats(chatbotId)).toEqual({ interactions: 1, lastInteraction: at });
  });

  it('counts a duplicated interaction once: the same job twice, another job id, the use case called again', async () => {
    const chatbotId = await newChatbot();
    const at = new Date('2026-02-03T10:00:00.000Z');
    const first = jobSettled(worker(), 'int-dup');
    await producer.publish(interaction('int-dup', chatbotId, at), 'int-dup');
    await producer.publish(interaction('int-dup', chatbotId, at), 'int-dup'); // BullMQ ignores the repeated job id
    expect((await first).state).toBe('completed');

    const again = jobSettled(worker(), 'int-dup.again');
    await producer.publish(interaction('int-dup', chatbotId, at), 'int-dup.again');
    expect((await again).state).toBe('completed');

    expect(await recordInteraction({ db: svc.parts.prisma }, { requestId: 'int-dup', chatbotId, occurredAt: at })).toBe('duplicate');
    expect(await stats(chatbotId)).toEqual({ interactions: 1, lastInteraction: at });
  });

  it('counts 20 concurrent deliveries of the same request once', async () => {
    const chatbotId = await newChatbot();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        recordInteraction({ db: svc.parts.prisma }, { requestId: 'int-race', chatbotId, occurredAt: new Date() }),
      ),
    );
    expect(results.filter((r) => r === 'counted')).toHaveLength(1);
    expect(results.filter((r) => r === 'duplicate')).toHaveLength(19);
    expect((await stats(chatbotId)).interactions).toBe(1);
  });

  it('counts 100 distinct interactions published at once, and keeps the latest time whatever the order', async () => {
    const chatbotId = await newChatbot();
    const base = Date.parse('2026-04-01T00:00:00.000Z');
    // Times out of order: the latest is published in the middle.
    const times = Array.from({ length: 100 }, (_, i) => new Date(base + ((i * 37) % 100) * 1000));
    const latest = new Date(Math.max(...times.map((t) => t.getTime())));
    await Promise.all(times.map((at, i) => producer.publish(interaction(`int-many-${i}`, chatbotId, at), `int-many-${i}`)));
    await expect.poll(async () => (await stats(chatbotId)).interactions, { timeout: 15_000 }).toBe(100);
    expect(await stats(chatbotId)).toEqual({ interactions: 100, lastInteraction: latest });
    expect(await svc.parts.prisma.processedInteraction.count({ where: { requestId: { startsWith: 'int-many-' } } })).toBe(100);
  });

  it('never moves the last interaction back for an event that arrives late', async () => {
    const chatbotId = await newChatbot();
    const later = new Date('2026-05-02T00:00:00.000Z');
    const earlier = new Date('2026-05-01T00:00:00.000Z');
    expect(await recordInteraction({ db: svc.parts.prisma }, { requestId: 'int-late-1', chatbotId, occurredAt: later })).toBe('counted');
    expect(await recordInteraction({ db: svc.parts.prisma }, { requestId: 'int-late-2', chatbotId, occurredAt: earlier })).toBe('counted');
    expect(await stats(chatbotId)).toEqual({ interactions: 2, lastInteraction: later });
  });
});

describe('interactions that are not counted', () => {
  it('acknowledges and ignores an interaction for a deleted chatbot', async () => {
    const ownerId = newOwner('deleted');
    const { chatbot } = await svc.client.createChatbot({ ownerId, name: 'Gone' });
    await svc.client.deleteChatbot({ ownerId, chatbotId: chatbot!.id });
    const settled = jobSettled(worker(), 'int-deleted');
    await producer.publish(interaction('int-deleted', chatbot!.id), 'int-deleted');
    const { state, job } = await settled;
    expect(state).toBe('completed');
    expect(job.attemptsMade).toBe(1);
    expect(await svc.parts.prisma.chatbot.count({ where: { id: chatbot!.id } })).toBe(0);
  });

  it.each([
    ['an unknown chatbot id', randomUUID()],
    ['a chatbot id that is not a UUID', 'not-a-chatbot'],
  ])('acknowledges and ignores an interaction for %s', async (_label, chatbotId) => {
    const jobId = `int-unknown-${chatbotId}`;
    const settled = jobSettled(worker(), jobId);
    await producer.publish(interaction(jobId, chatbotId), jobId);
    expect((await settled).state).toBe('completed');
  });

  it.each([
    ['an empty request id', { requestId: '' }, /request_id is required/],
    ['no occurred_at', { occurredAt: undefined }, /occurred_at is required/],
  ])('fails an event with %s at once and counts nothing', async (label, overrides, message) => {
    const chatbotId = await newChatbot();
    const jobId = `int-bad-${label.replace(/\W+/g, '-')}`;
    const settled = jobSettled(worker(), jobId);
    await producer.publish({ ...interaction(jobId, chatbotId), ...overrides }, jobId);
    const { state, job, error } = await settled;
    expect(state).toBe('failed');
    expect(error?.name).toBe('UnrecoverableError');
    expect(error?.message).toMatch(message);
    expect(job.attemptsMade).toBe(1);
    expect(await stats(chatbotId)).toEqual({ interactions: 0, lastInteraction: null });
  });
});

describe('wiring', () => {
  it('starts no interaction worker when workers are off', async () => {
    const quiet = await createChatbotService(svc.config, { logger, workers: false });
    try {
      expect(quiet.chatbotInteractionWorker).toBeUndefined();
      expect(quiet.interactionsCountedWorker).toBeUndefined();
    } finally {
      for (const close of quiet.closers) await close();
    }
  });
});

describe('pruning counted request ids', () => {
  it('forgets the request ids counted before the cut-off, in batches, and keeps the recent ones', async () => {
    const chatbotId = await newChatbot();
    const old = Array.from({ length: 12 }, () => `old-${randomUUID()}`);
    for (const requestId of old) await recordInteraction({ db: svc.db }, { requestId, chatbotId, occurredAt: new Date() });
    const recent = `recent-${randomUUID()}`;
    await recordInteraction({ db: svc.db }, { requestId: recent, chatbotId, occurredAt: new Date() });
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600_000);
    await svc.db.processedInteraction.updateMany({ where: { requestId: { in: old } }, data: { createdAt: eightDaysAgo } });

    // Batches of 5: the 12 (and any older rows of this file's other tests) go in several statements.
    const deleted = await pruneProcessedInteractions(svc.db, new Date(Date.now() - PROCESSED_INTERACTION_RETENTION_MS), 5);
    expect(deleted).toBeGreaterThanOrEqual(12);
    expect(await svc.db.processedInteraction.count({ where: { requestId: { in: old } } })).toBe(0);
    expect(await svc.db.processedInteraction.count({ where: { requestId: recent } })).toBe(1);
    // The counts themselves stay; a recent id is still a duplicate.
    expect((await stats(chatbotId)).interactions).toBe(13);
    expect(await recordInteraction({ db: svc.db }, { requestId: recent, chatbotId, occurredAt: new Date() })).toBe('duplicate');
    expect(await pruneProcessedInteractions(svc.db, new Date(Date.now() - PROCESSED_INTERACTION_RETENTION_MS))).toBe(0);
  });
});
