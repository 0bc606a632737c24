// Analytics of answered messages against real PostgreSQL and Redis: the figures of a seeded set of
// events (and each visitor's days of a year, as bits) equal a direct count over it; a redelivered
// event counts once; events of the same day processed in parallel through the real queue all count;
// ratings move the thumbs; a deleted chatbot's analytics go with it; processed request ids are pruned.
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ChatbotInteractionSchema } from '@parley/proto/parley/events/v1/chatbot_interaction_pb.js';
import { createLogger } from '@parley/common/logger.ts';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { deleteChatbotConversations } from '../../conversations/delete-conversations.ts';
import { deleteOwnerConversations } from '../../conversations/delete-owner-conversations.ts';
import { ANSWER_MS_BUCKETS, HOURS_PER_DAY, YEAR_BITS, answerMsBucket, applyRating, dayString, utcDay, yearDays } from '../aggregates.ts';
import { batcher } from '@parley/common/batcher.ts';
import { startAnalyticsWorker } from '../analytics-interaction.job.ts';
import { pruneProcessedAnalyticsEvents } from '../prune-processed-analytics-events.ts';
import { parseAnalyticsEvent, recordAnalytics, recordAnalyticsBatch, type AnalyticsEventInput } from '../record-analytics.ts';
import { blockedBy, holdRows } from '../../../test/integration/held-rows.ts';
import { testDb } from './test-db.ts';

let db: PrismaClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await testDb());
});
afterAll(async () => close?.());

const QUESTIONS = [
  'What are your opening hours?',
  'when are you open',
  'How much does shipping cost?',
  'shipping price',
  'Do you offer refunds?',
];

/** A deterministic pseudo-random sequence, so a failing seed can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

function event(chatbotId: string, ownerId: string, over: Partial<AnalyticsEventInput> = {}): AnalyticsEventInput {
  return {
    requestId: randomUUID(),
    chatbotId,
    ownerId,
    sessionId: 'session-1',
    visitorHash: createHash('sha256').update('203.0.113.7').digest('hex'),
    question: 'When are you open?',
    answered: true,
    answerMs: 800,
    receivedAt: new Date('2026-11-20T09:15:00Z'),
    occurredAt: new Date('2026-11-20T09:15:01Z'),
    language: 'english',
    interactionsViaAnalytics: true,
    ...over,
  };
}

/** Seeded events over several days, sessions and visitors. */
function seededEvents(chatbotId: string, ownerId: string, n: number, seed = 7): AnalyticsEventInput[] {
  const next = random(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const start = Date.parse('2026-11-01T00:00:00Z');
  return Array.from({ length: n }, () =>
    event(chatbotId, ownerId, {
      sessionId: `s-${Math.floor(next() * 30)}`,
      visitorHash: `v-${Math.floor(next() * 12)}`,
      question: pick(QUESTIONS),
      answered: next() < 0.6,
      answerMs: Math.floor(next() * 12_000),
      receivedAt: new Date(start + Math.floor(next() * 5 * 86_400_000)),
    }),
  );
}

/** What the days should hold: counted directly over the events. */
function directCount(events: AnalyticsEventInput[]) {
  const days = new Map<
    string,
    { conversations: number; messages: number; answered: number; visitors: Set<string>; buckets: number[]; hours: number[] }
  >();
  const firstDay = new Map<string, string>();
  for (const e of [...events].sort((a, b) => a.receivedAt!.getTime() - b.receivedAt!.getTime())) {
    const day = dayString(e.receivedAt!);
    if (!firstDay.has(e.sessionId)) firstDay.set(e.sessionId, day);
  }
  for (const e of events) {
    const day = dayString(e.receivedAt!);
    let d = days.get(day);
    if (!d) {
      d = {
        conversations: 0,
        messages: 0,
        answered: 0,
        visitors: new Set(),
        buckets: new Array(ANSWER_MS_BUCKETS.length).fill(0),
        hours: new Array(HOURS_PER_DAY).fill(0),
      };
      days.set(day, d);
    }
    d.messages++;
    if (e.answered) d.answered++;
    d.visitors.add(e.visitorHash);
    d.buckets[answerMsBucket(e.answerMs)]++;
    d.hours[e.receivedAt!.getUTCHours()]++;
  }
  for (const day of firstDay.values()) days.get(day)!.conversations++;
  return [...days.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([day, d]) => ({
      day,
      conversations: d.conversations,
      messages: d.messages,
      answered: d.answered,
      uniqueVisitors: d.visitors.size,
      answerMsBuckets: d.buckets,
      hours: d.hours,
    }));
}

/** Each visitor's days of each year, counted directly over the events: "year visitor" → sorted YYYY-MM-DD days. */
function directVisitorYears(events: AnalyticsEventInput[]) {
  const years = new Map<string, Set<string>>();
  for (const e of events) {
    if (!e.visitorHash) continue;
    const day = dayString(e.receivedAt!);
    const key = `${day.slice(0, 4)} ${e.visitorHash}`;
    years.set(key, (years.get(key) ?? new Set()).add(day));
  }
  return Object.fromEntries([...years].sort(([a], [b]) => a.localeCompare(b)).map(([key, days]) => [key, [...days].sort()]));
}

/** The same read from AnalyticsVisitorYear: bit i of a row is day i of its year. */
async function storedVisitorYears(chatbotId: string) {
  const rows = await db.analyticsVisitorYear.findMany({ where: { chatbotId } });
  expect(rows.every((r) => r.days.length === YEAR_BITS)).toBe(true);
  const days = (year: number, bits: string) =>
    [...bits].flatMap((bit, i) => (bit === '1' ? [dayString(new Date(Date.UTC(year, 0, 1 + i)))] : [])).sort();
  return Object.fromEntries(
    rows.map((r) => [`${r.year} ${r.visitorHash}`, days(r.year, r.days)] as const).sort(([a], [b]) => a.localeCompare(b)),
  );
}

async function storedDays(chatbotId: string) {
  const rows = await db.analyticsDay.findMany({ where: { chatbotId }, orderBy: { day: 'asc' } });
  return rows.map((r) => ({
    day: r.day.toISOString().slice(0, 10),
    conversations: r.conversations,
    messages: r.messages,
    answered: r.answered,
    uniqueVisitors: r.uniqueVisitors,
    answerMsBuckets: r.answerMsBuckets,
    hours: r.hours,
  }));
}

describe('recordAnalytics', () => {
  it('keeps figures equal to a direct count over a seeded set of events', async () => {
    const chatbotId = randomUUID();
    const events = seededEvents(chatbotId, 'owner-seeded', 300);
    // Sessions are counted on their first day even when the events arrive out of order.
    events.sort((a, b) => a.receivedAt!.getTime() - b.receivedAt!.getTime());
    for (const e of events) expect(await recordAnalytics(db, e)).toBe('counted');
    expect(await storedDays(chatbotId)).toEqual(directCount(events));

    const asked = await db.questionCluster.findMany({ where: { chatbotId, kind: 'asked' } });
    expect(asked.map((g) => g.count).sort((a, b) => b - a)).toEqual(
      [
        events.filter((e) => e.question.includes('open')).length,
        events.filter((e) => e.question.includes('shipping')).length,
        events.filter((e) => e.question.includes('refund')).length,
      ].sort((a, b) => b - a),
    );
    const unanswered = await db.questionCluster.aggregate({ where: { chatbotId, kind: 'unanswered' }, _sum: { count: true } });
    expect(unanswered._sum.count).toBe(events.filter((e) => !e.answered).length);
    const askedDays = await db.questionClusterDay.aggregate({ where: { cluster: { chatbotId } }, _sum: { count: true } });
    expect(askedDays._sum.count).toBe(events.length);
    expect(await storedVisitorYears(chatbotId)).toEqual(directVisitorYears(events));
  });

  it("keeps a visitor's days of each year as bits, across a new year, concurrent days included", async () => {
    const chatbotId = randomUUID();
    const days = ['2024-12-31', '2025-01-01', '2025-03-01', '2025-12-31', '2026-01-01', '2026-01-02'];
    const events = days.flatMap((day, i) =>
      ['a', 'b', i % 2 ? 'c' : ''].map((visitorHash) =>
        event(chatbotId, 'owner-years', { visitorHash, sessionId: `s-${visitorHash}`, receivedAt: new Date(`${day}T23:59:59Z`) }),
      ),
    );
    // Each visitor's days at once: one row per visitor and year, every day's bit set.
    expect(new Set(await Promise.all(events.map((e) => recordAnalytics(db, e))))).toEqual(new Set(['counted']));
    expect(await storedVisitorYears(chatbotId)).toEqual(directVisitorYears(events));
    const rows = await db.analyticsVisitorYear.findMany({ where: { chatbotId, visitorHash: 'a' }, orderBy: { year: 'asc' } });
    // 2024 is a leap year: 31 December is its day 365, the last bit.
    expect(rows.map((r) => [r.year, [...r.days].flatMap((bit, i) => (bit === '1' ? [i] : []))])).toEqual([
      [2024, [365]],
      [2025, [0, 59, 364]],
      [2026, [0, 1]],
    ]);
  });

  it('counts a redelivered event once', async () => {
    const chatbotId = randomUUID();
    const e = event(chatbotId, 'owner-redelivery', { answered: false });
    expect(await recordAnalytics(db, e)).toBe('counted');
    expect(await recordAnalytics(db, e)).toBe('duplicate');
    const together = await Promise.all([
      recordAnalytics(db, { ...e, requestId: 'same-id' }),
      recordAnalytics(db, { ...e, requestId: 'same-id' }),
    ]);
    expect(together.sort()).toEqual(['counted', 'duplicate']);
    const [day] = await storedDays(chatbotId);
    expect(day).toMatchObject({ messages: 2, answered: 0, conversations: 1, uniqueVisitors: 1 });
    expect(
      await db.questionCluster.findMany({ where: { chatbotId }, select: { kind: true, count: true }, orderBy: { kind: 'asc' } }),
    ).toEqual([
      { kind: 'asked', count: 2 },
      { kind: 'unanswered', count: 2 },
    ]);
  });

  it('rejects an event that can never be counted', async () => {
    const chatbotId = randomUUID();
    await expect(recordAnalytics(db, event('not-a-uuid', 'o'))).rejects.toThrow(/chatbot_id/);
    await expect(recordAnalytics(db, event(chatbotId, ' '))).rejects.toThrow(/owner_id/);
    await expect(recordAnalytics(db, event(chatbotId, 'o', { receivedAt: undefined, occurredAt: undefined }))).rejects.toThrow(
      /received_at/,
    );
    expect(await db.analyticsDay.count({ where: { chatbotId } })).toBe(0);
  });
});

describe('counting in batches', () => {
  /**
   * A chatbot's question groups as the owner sees them: kind, count, status and examples, by first
   * wording. The examples as a set: wordings of one batch (one moment) join their group together.
   */
  const groups = async (chatbotId: string) =>
    (await db.questionCluster.findMany({ where: { chatbotId }, orderBy: [{ kind: 'asc' }, { question: 'asc' }] })).map((c) => ({
      kind: c.kind,
      question: c.question,
      count: c.count,
      examples: [...c.examples].sort(),
      status: c.status,
    }));

  it('gives the same figures and groups as counting the events one by one, each event once', async () => {
    const [oneByOne, batched] = [randomUUID(), randomUUID()];
    // In time order, as they arrive: a conversation counts on the day of its first message.
    const events = seededEvents(oneByOne, 'owner-batches', 120, 23).sort((a, b) => a.receivedAt!.getTime() - b.receivedAt!.getTime());
    for (const e of events) await recordAnalytics(db, e);
    const again = events.map((e) => ({ ...e, chatbotId: batched, requestId: randomUUID() }));
    // Batches of uneven sizes, one of them with a repeated event inside and one redelivered whole.
    const parsed = again.map(parseAnalyticsEvent);
    const batches = [parsed.slice(0, 1), [...parsed.slice(1, 40), parsed[5]], parsed.slice(40, 97), parsed.slice(97)];
    const results = [];
    for (const batch of batches) results.push(...(await recordAnalyticsBatch(db, batch)));
    expect(results.filter((r) => r === 'duplicate')).toHaveLength(1);
    expect(await recordAnalyticsBatch(db, parsed.slice(40, 97))).toEqual(new Array(57).fill('duplicate'));

    expect(await storedDays(batched)).toEqual(directCount(again));
    expect(await storedDays(batched)).toEqual(await storedDays(oneByOne));
    expect(await storedVisitorYears(batched)).toEqual(directVisitorYears(again));
    expect(await groups(batched)).toEqual(await groups(oneByOne));
    expect((await groups(batched)).length).toBeGreaterThan(2);
  });

  it('counts an event that fails alone without failing the rest of its batch', async () => {
    const counted: string[] = [];
    const gather = batcher<string>(
      async (items) => {
        if (items.includes('bad')) throw new Error('bad item');
        counted.push(...items);
      },
      { size: 3, waitMs: 5 },
    );
    const outcomes = await Promise.allSettled(['a', 'bad', 'b', 'c'].map((item) => gather.add(item)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(counted.sort()).toEqual(['a', 'b', 'c']);
  });
});

describe('yearDays', () => {
  it('gives a mask per year a range touches, bit i the day i of the year', () => {
    const at = (d: string) => new Date(`${d}T00:00:00Z`);
    const ones = (mask: string) => [...mask].flatMap((bit, i) => (bit === '1' ? [i] : []));
    const [day] = yearDays(at('2026-03-01'), at('2026-03-01'));
    expect([day.year, ones(day.mask), day.mask.length, day.wholeYear]).toEqual([2026, [59], YEAR_BITS, false]);
    const span = yearDays(at('2023-12-30'), at('2025-01-02'));
    expect(span.map((y) => [y.year, ones(y.mask).length, ones(y.mask)[0], ones(y.mask).at(-1), y.wholeYear])).toEqual([
      [2023, 2, 363, 364, false],
      [2024, 366, 0, 365, true],
      [2025, 2, 0, 1, false],
    ]);
    expect(yearDays(at('2025-01-01'), at('2025-12-31'))).toMatchObject([{ year: 2025, wholeYear: true }]);
  });
});

describe('the analytics worker', () => {
  it('counts every event of the same day processed in parallel, once each', async () => {
    const { redisUrl } = await testInfra();
    const redis = createRedis(redisUrl);
    const prefix = uniqueName('test');
    const logger = createLogger('analytics-test', 'silent');
    const worker = startAnalyticsWorker({
      redis,
      logger,
      prefix,
      concurrency: 8,
      recordAnalytics: (batch) => recordAnalyticsBatch(db, batch),
    });
    const producer = createProducer(redis, QUEUES.chatbotInteractionAnalytics, ChatbotInteractionSchema, { prefix });
    const queue = new Queue(QUEUES.chatbotInteractionAnalytics, { connection: redis, prefix });
    try {
      const chatbotId = randomUUID();
      const events = seededEvents(chatbotId, 'owner-parallel', 60, 11).map((e) => ({ ...e, receivedAt: new Date('2026-11-20T12:00:00Z') }));
      const publish = (e: AnalyticsEventInput, jobId: string) =>
        producer.publish(
          create(ChatbotInteractionSchema, {
            requestId: e.requestId,
            chatbotId: e.chatbotId,
            ownerId: e.ownerId,
            sessionId: e.sessionId,
            visitorHash: e.visitorHash,
            question: e.question,
            answered: e.answered,
            answerMs: e.answerMs,
            receivedAt: timestampFromDate(e.receivedAt!),
            occurredAt: timestampFromDate(e.occurredAt!),
            language: e.language,
          }),
          jobId,
        );
      await Promise.all(events.map((e) => publish(e, e.requestId)));
      // The same events again under other job ids: BullMQ runs them, the request ids stop them.
      await Promise.all(events.slice(0, 10).map((e) => publish(e, `again-${e.requestId}`)));
      for (const deadline = Date.now() + 30_000; ;) {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        if (Object.values(counts).every((n) => n === 0)) break;
        if (Date.now() > deadline) throw new Error(`analytics jobs still queued: ${JSON.stringify(counts)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await queue.getJobs(['failed'])).map((j) => j.failedReason)).toEqual([]);
      expect(await storedDays(chatbotId)).toEqual(directCount(events));
      expect(await storedVisitorYears(chatbotId)).toEqual(directVisitorYears(events));
      const asked = await db.questionCluster.aggregate({ where: { chatbotId, kind: 'asked' }, _sum: { count: true } });
      expect(asked._sum.count).toBe(events.length);
    } finally {
      await worker.close();
      await producer.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await redis.quit();
    }
  });
});

describe('applyRating', () => {
  it('moves a rating between the day’s thumbs, creating the day when missing', async () => {
    const chatbotId = randomUUID();
    const key = { chatbotId, ownerId: 'owner-rating', day: utcDay(new Date('2026-11-20T15:00:00Z')) };
    await applyRating(db, { ...key, from: null, to: 'up' });
    const created = await db.analyticsDay.findUniqueOrThrow({ where: { chatbotId_day: { chatbotId, day: key.day } } });
    expect(created).toMatchObject({ thumbsUp: 1, thumbsDown: 0, messages: 0 });
    expect(created.hours).toHaveLength(HOURS_PER_DAY);
    expect(created.answerMsBuckets).toHaveLength(ANSWER_MS_BUCKETS.length);

    await db.$transaction(async (tx) => {
      await applyRating(tx, { ...key, from: 'up', to: 'down' });
      await applyRating(tx, { ...key, from: null, to: 'down' });
      await applyRating(tx, { ...key, from: 'down', to: 'down' });
    });
    await Promise.all(Array.from({ length: 5 }, () => applyRating(db, { ...key, from: null, to: 'up' })));
    // The event of that day arrives afterwards: its counters add to the same row.
    await recordAnalytics(db, event(chatbotId, 'owner-rating', { receivedAt: new Date('2026-11-20T15:00:00Z') }));
    const row = await db.analyticsDay.findUniqueOrThrow({ where: { chatbotId_day: { chatbotId, day: key.day } } });
    expect(row).toMatchObject({ thumbsUp: 5, thumbsDown: 2, messages: 1, answered: 1 });
    expect(row.hours[15]).toBe(1);
  });
});

describe('housekeeping', () => {
  it('prunes processed request ids older than the retention', async () => {
    await db.processedAnalyticsEvent.createMany({
      data: [
        { requestId: `old-${randomUUID()}`, createdAt: new Date(Date.now() - 8 * 86_400_000) },
        { requestId: `old-${randomUUID()}`, createdAt: new Date(Date.now() - 8 * 86_400_000) },
        { requestId: `new-${randomUUID()}` },
      ],
    });
    const before = await db.processedAnalyticsEvent.count();
    expect(await pruneProcessedAnalyticsEvents(db, new Date(Date.now() - 7 * 86_400_000), 1)).toBe(2);
    expect(await db.processedAnalyticsEvent.count()).toBe(before - 2);
  });

  it('removes a deleted chatbot’s analytics, and a deleted owner’s even without conversations', async () => {
    const [kept, deleted, ownersBot] = [randomUUID(), randomUUID(), randomUUID()];
    for (const [chatbotId, ownerId] of [
      [kept, 'owner-kept'],
      [deleted, 'owner-deleted-bot'],
      [ownersBot, 'owner-deleted'],
    ])
      await recordAnalytics(db, event(chatbotId, ownerId, { answered: false }));
    await deleteChatbotConversations({ db }, deleted);
    await deleteOwnerConversations({ db }, { ownerId: 'owner-deleted' });
    for (const chatbotId of [deleted, ownersBot]) {
      expect(await db.analyticsDay.count({ where: { chatbotId } })).toBe(0);
      expect(await db.analyticsSession.count({ where: { chatbotId } })).toBe(0);
      expect(await db.analyticsVisitor.count({ where: { chatbotId } })).toBe(0);
      expect(await db.analyticsVisitorYear.count({ where: { chatbotId } })).toBe(0);
      expect(await db.questionCluster.count({ where: { chatbotId } })).toBe(0);
    }
    expect(await db.analyticsDay.count({ where: { chatbotId: kept } })).toBe(1);
    expect(await db.analyticsVisitorYear.count({ where: { chatbotId: kept } })).toBe(1);
    expect(await db.questionCluster.count({ where: { chatbotId: kept } })).toBe(2);

    // An event still queued for a deleted chatbot (alone or beside another's) counts nothing, ever.
    const late = await recordAnalyticsBatch(db, [
      parseAnalyticsEvent(event(deleted, 'owner-deleted-bot')),
      parseAnalyticsEvent(event(ownersBot, 'owner-deleted')),
      parseAnalyticsEvent(event(kept, 'owner-kept')),
    ]);
    expect(late).toEqual(['chatbot-deleted', 'chatbot-deleted', 'counted']);
    for (const chatbotId of [deleted, ownersBot]) {
      expect(await db.analyticsDay.count({ where: { chatbotId } })).toBe(0);
      expect(await db.analyticsSession.count({ where: { chatbotId } })).toBe(0);
      expect(await db.questionCluster.count({ where: { chatbotId } })).toBe(0);
    }
    expect((await db.analyticsDay.findFirstOrThrow({ where: { chatbotId: kept } })).messages).toBe(2);
    // Deleting again (a redelivered ChatbotDeleted) is still idempotent.
    await deleteChatbotConversations({ db }, deleted);
  });

  it('a batch already counting when its chatbot is deleted is deleted after it, not written back', async () => {
    const [chatbotId, ownerId] = [randomUUID(), 'owner-deleted-mid-batch'];
    await recordAnalytics(db, event(chatbotId, ownerId));
    // Another transaction holds the chatbot's day row, so the next batch stops there, mid-way
    // (its new session and visitor already inserted, not yet committed).
    const held = await holdRows(db, (tx) => tx.$queryRaw`SELECT 1 FROM "AnalyticsDay" WHERE "chatbotId" = ${chatbotId}::uuid FOR UPDATE`);

    const counting = recordAnalyticsBatch(db, [
      parseAnalyticsEvent(event(chatbotId, ownerId, { sessionId: 'session-2', visitorHash: 'c'.repeat(64) })),
    ]);
    await expect.poll(() => blockedBy(db, [held.pid])).toHaveLength(1);
    const [batchPid] = await blockedBy(db, [held.pid]);
    // The deletion waits for the batch (without the chatbot's lock it would delete around it).
    const deleting = deleteChatbotConversations({ db }, chatbotId);
    await expect.poll(() => blockedBy(db, [held.pid, batchPid])).toHaveLength(2);
    await held.release();
    expect(await counting).toEqual(['counted']);
    await deleting;

    expect(await db.analyticsDay.count({ where: { chatbotId } })).toBe(0);
    expect(await db.analyticsSession.count({ where: { chatbotId } })).toBe(0);
    expect(await db.analyticsVisitor.count({ where: { chatbotId } })).toBe(0);
    expect(await db.analyticsVisitorYear.count({ where: { chatbotId } })).toBe(0);
    expect(await db.questionCluster.count({ where: { chatbotId } })).toBe(0);
  });
});
