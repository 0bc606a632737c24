// The chatbots' interaction counts an analytics batch records for the chatbot service (ADR 23),
// against real PostgreSQL and Redis: one outbox record per chatbot of the batch's newly counted
// events, written in the batch's transaction (nothing when it fails), published under its id after
// the commit and removed, left for the relay when publishing fails, and published by the relay once
// it has waited its grace period.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ChatbotInteractionsCountedSchema } from '@parley/proto/parley/events/v1/chatbot_interactions_counted_pb.js';
import { createLogger } from '@parley/common/logger.ts';
import { RELAY_AFTER_MS } from '@parley/common/outbox.ts';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import { testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { deleteChatbotConversations } from '../../conversations/delete-conversations.ts';
import {
  announceInteractionsCounted,
  interactionsCountedPublisher,
  relayChatbotInteractionsCounted,
  type InteractionsCounted,
  type PublishInteractionsCounted,
} from '../chatbot-interactions-counted.outbox.ts';
import { parseAnalyticsEvent, recordAnalytics, recordAnalyticsBatch, type AnalyticsEventInput } from '../record-analytics.ts';
import { testDb } from './test-db.ts';

let db: PrismaClient;
let close: () => Promise<void>;
let redis: Redis;
const logger = createLogger('interactions-counted-test', 'silent');

beforeAll(async () => {
  ({ db, close } = await testDb());
  redis = createRedis((await testInfra()).redisUrl);
});
afterAll(async () => {
  await redis?.quit();
  await close?.();
});

function event(chatbotId: string, over: Partial<AnalyticsEventInput> = {}): AnalyticsEventInput {
  return {
    requestId: randomUUID(),
    chatbotId,
    ownerId: `owner-${chatbotId.slice(0, 8)}`,
    sessionId: 'session-1',
    visitorHash: 'v-1',
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

const records = (chatbotIds: string[]) =>
  db.chatbotInteractionsCountedOutbox.findMany({ where: { chatbotId: { in: chatbotIds } }, orderBy: { chatbotId: 'asc' } });

/** Plain string order: PostgreSQL's order of UUIDs. */
const byString = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the outbox record of a batch', () => {
  it("is one per chatbot: its newly counted events, the latest answer time, a fresh id; none for a repeat, a deleted chatbot or an earlier publisher's event", async () => {
    const [a, b, deleted, earlier] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()].sort();
    const counted = event(a);
    await recordAnalytics(db, counted);
    await db.chatbotInteractionsCountedOutbox.deleteMany({ where: { chatbotId: a } });
    await deleteChatbotConversations({ db }, deleted);

    const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));
    // The latest answer is neither the first nor the last of its chatbot's events, and the message
    // times (receivedAt) are later than the answers' to show which one is used.
    const latestOfA = at(40);
    const repeated = event(a, { occurredAt: at(10) });
    const batch = [
      counted, // counted before: a redelivery
      repeated,
      event(a, { occurredAt: latestOfA, receivedAt: at(1) }),
      repeated, // twice in the batch: once
      event(a, { occurredAt: at(20), receivedAt: at(59) }),
      event(b, { occurredAt: at(5) }),
      event(deleted),
      event(earlier, { interactionsViaAnalytics: false }),
    ].map(parseAnalyticsEvent);
    expect(await recordAnalyticsBatch(db, batch)).toEqual([
      'duplicate',
      'counted',
      'counted',
      'duplicate',
      'counted',
      'counted',
      'chatbot-deleted',
      'counted',
    ]);

    const rows = await records([a, b, deleted, earlier]);
    expect(rows.map((r) => ({ chatbotId: r.chatbotId, count: r.count, lastInteractionAt: r.lastInteractionAt }))).toEqual([
      { chatbotId: a, count: 3, lastInteractionAt: latestOfA },
      { chatbotId: b, count: 1, lastInteractionAt: at(5) },
    ]);
    expect(rows.every((r) => UUID.test(r.id))).toBe(true);
    expect(new Set(rows.map((r) => r.id)).size).toBe(2);
    // The earlier publisher's event is counted in analytics all the same.
    expect(await db.analyticsDay.count({ where: { chatbotId: earlier } })).toBe(1);

    // The whole batch again (every job redelivered): nothing new to count, nothing recorded.
    expect(await recordAnalyticsBatch(db, batch)).toEqual(new Array(8).fill('duplicate'));
    expect(await records([a, b, deleted, earlier])).toEqual(rows);
  });

  it('falls back to the time the message arrived when the answer time is missing', async () => {
    const chatbotId = randomUUID();
    const receivedAt = new Date('2026-11-21T08:00:00Z');
    await recordAnalytics(db, event(chatbotId, { receivedAt, occurredAt: undefined }));
    expect((await records([chatbotId])).map((r) => [r.count, r.lastInteractionAt])).toEqual([[1, receivedAt]]);
  });

  it.each([
    ['the outbox record', 'ChatbotInteractionsCountedOutbox'],
    ['a day of analytics', 'AnalyticsDay'],
  ])('is not written when the batch fails at %s, and the retry writes it once', async (_label, table) => {
    const [failing, other] = [randomUUID(), randomUUID()];
    // The batch's statement on this table fails for one chatbot (a trigger in this file's own schema).
    const trigger = `fail_${table}`.toLowerCase();
    await db.$executeRawUnsafe(`
      CREATE OR REPLACE FUNCTION "${trigger}"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW."chatbotId"::text = '${failing}' THEN RAISE EXCEPTION 'the database failed'; END IF;
        RETURN NEW;
      END $$`);
    await db.$executeRawUnsafe(
      `CREATE TRIGGER "${trigger}" BEFORE INSERT OR UPDATE ON "${table}" FOR EACH ROW EXECUTE FUNCTION "${trigger}"()`,
    );
    const batch = [event(other), event(failing), event(failing, { sessionId: 'session-2' })].map(parseAnalyticsEvent);
    try {
      await expect(recordAnalyticsBatch(db, batch)).rejects.toThrow(/the database failed/);
      expect(await records([failing, other])).toEqual([]);
      expect(await db.processedAnalyticsEvent.count({ where: { requestId: { in: batch.map((e) => e.requestId) } } })).toBe(0);
      expect(await db.analyticsDay.count({ where: { chatbotId: { in: [failing, other] } } })).toBe(0);
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER "${trigger}" ON "${table}"`);
    }
    expect(await recordAnalyticsBatch(db, batch)).toEqual(['counted', 'counted', 'counted']);
    expect(await recordAnalyticsBatch(db, batch)).toEqual(['duplicate', 'duplicate', 'duplicate']);
    expect((await records([failing, other])).map((r) => ({ chatbotId: r.chatbotId, count: r.count }))).toEqual(
      [
        { chatbotId: failing, count: 2 },
        { chatbotId: other, count: 1 },
      ].sort((x, y) => byString(x.chatbotId, y.chatbotId)),
    );
  });
});

describe('publishing the records', () => {
  /** A producer and a view of the queue under a prefix of the test's own. */
  async function counterQueue() {
    const prefix = uniqueName('test');
    const producer = createProducer(redis, QUEUES.chatbotInteractionsCounted, ChatbotInteractionsCountedSchema, { prefix });
    const queue = new Queue(QUEUES.chatbotInteractionsCounted, { connection: redis, prefix });
    return {
      publish: interactionsCountedPublisher(producer),
      /** Every job queued: its id and its event. */
      jobs: async () =>
        (await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']))
          .map((j) => {
            const e = fromJson(ChatbotInteractionsCountedSchema, j.data as JsonValue);
            return {
              jobId: j.id,
              id: e.id,
              chatbotId: e.chatbotId,
              count: e.count,
              lastInteractionAt: timestampDate(e.lastInteractionAt!),
            };
          })
          .sort((x, y) => byString(x.chatbotId, y.chatbotId)),
      close: async () => {
        await producer.close();
        await queue.obliterate({ force: true });
        await queue.close();
      },
    };
  }
  const asJobs = (rows: InteractionsCounted[]) =>
    rows.map((r) => ({ jobId: r.id, id: r.id, chatbotId: r.chatbotId, count: r.count, lastInteractionAt: r.lastInteractionAt }));

  it('publishes each record under its id once the batch has committed, then removes it', async () => {
    const counter = await counterQueue();
    try {
      const [a, b] = [randomUUID(), randomUUID()];
      const seen: InteractionsCounted[] = [];
      const publish: PublishInteractionsCounted = async (record) => {
        // The batch has committed: its counts and its record are visible to others.
        expect(await db.processedAnalyticsEvent.count({ where: { requestId: { in: batch.map((e) => e.requestId) } } })).toBe(3);
        expect(await db.chatbotInteractionsCountedOutbox.count({ where: { id: record.id } })).toBe(1);
        seen.push(record);
        await counter.publish(record);
      };
      const batch = [event(a), event(b), event(b)].map(parseAnalyticsEvent);
      await recordAnalyticsBatch(db, batch, (rows) => announceInteractionsCounted({ db, publish, logger }, rows));
      expect(seen.map((r) => ({ chatbotId: r.chatbotId, count: r.count })).sort((x, y) => byString(x.chatbotId, y.chatbotId))).toEqual(
        [
          { chatbotId: a, count: 1 },
          { chatbotId: b, count: 2 },
        ].sort((x, y) => byString(x.chatbotId, y.chatbotId)),
      );
      expect(await counter.jobs()).toEqual(asJobs(seen).sort((x, y) => byString(x.chatbotId, y.chatbotId)));
      expect(await records([a, b])).toEqual([]);
    } finally {
      await counter.close();
    }
  });

  it('leaves a record whose publish failed, without failing the batch, for the relay to publish once it has waited', async () => {
    const counter = await counterQueue();
    try {
      await db.chatbotInteractionsCountedOutbox.deleteMany({});
      const [a, b] = [randomUUID(), randomUUID()].sort();
      // Redis refuses a's record; b's goes through.
      const publish: PublishInteractionsCounted = async (record) => {
        if (record.chatbotId === a) throw new Error('redis unreachable');
        await counter.publish(record);
      };
      const batch = [event(a), event(a), event(b)].map(parseAnalyticsEvent);
      expect(await recordAnalyticsBatch(db, batch, (rows) => announceInteractionsCounted({ db, publish, logger }, rows))).toEqual([
        'counted',
        'counted',
        'counted',
      ]);
      const [waiting] = await records([a, b]);
      expect(waiting).toMatchObject({ chatbotId: a, count: 2 });
      expect((await counter.jobs()).map((j) => [j.chatbotId, j.count])).toEqual([[b, 1]]);

      // The relay leaves what is younger than its grace period (the batch's own publish may be under way)...
      expect(await relayChatbotInteractionsCounted(db, counter.publish, new Date(Date.now() - RELAY_AFTER_MS))).toBe(0);
      expect(await records([a])).toHaveLength(1);
      // ...and publishes it, under its id, once it has waited, then removes it.
      expect(await relayChatbotInteractionsCounted(db, counter.publish, new Date(Date.now() + 1000))).toBe(1);
      expect(await records([a, b])).toEqual([]);
      const jobs = await counter.jobs();
      expect(jobs.map((j) => [j.chatbotId, j.count])).toEqual([
        [a, 2],
        [b, 1],
      ]);
      expect(jobs[0]).toEqual(asJobs([waiting])[0]);
      expect(await relayChatbotInteractionsCounted(db, counter.publish, new Date(Date.now() + 1000))).toBe(0);
    } finally {
      await counter.close();
    }
  });

  it('relays a backlog larger than one page in one pass', async () => {
    const counter = await counterQueue();
    try {
      await db.chatbotInteractionsCountedOutbox.deleteMany({});
      const chatbotId = randomUUID();
      const backlog = Array.from({ length: 230 }, (_, i) => ({
        id: randomUUID(),
        chatbotId,
        count: 1 + (i % 7),
        lastInteractionAt: new Date(Date.UTC(2026, 10, 20, 0, i)),
        createdAt: new Date(Date.now() - 3_600_000 + i),
      }));
      await db.chatbotInteractionsCountedOutbox.createMany({ data: backlog });
      expect(await relayChatbotInteractionsCounted(db, counter.publish, new Date(Date.now() - RELAY_AFTER_MS))).toBe(230);
      expect(await db.chatbotInteractionsCountedOutbox.count()).toBe(0);
      const jobs = await counter.jobs();
      expect(jobs).toHaveLength(230);
      expect(jobs.reduce((sum, j) => sum + j.count, 0)).toBe(backlog.reduce((sum, r) => sum + r.count, 0));
    } finally {
      await counter.close();
    }
  });
});
