// Retention windows in the chat service (docs/adr/0048-retention-windows.md), on real PostgreSQL:
// with the clock moved (never waited for), the sweep deletes exactly the conversations (with their
// messages and lead) and the leads past each workspace's windows and nothing else, in batches,
// idempotently (a second run deletes nothing), with the counts it reports; the preview counts what
// the sweep then deletes; the windows are set and read over the RPC, 7 days to forever.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code } from '@connectrpc/connect';
import {
  previewRetention,
  RETENTION_DAYS_INVALID,
  sweepRetention,
  sweepWorkspace,
  type RetentionCounts,
} from '../../src/conversations/retention.ts';
import { Queue } from 'bullmq';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import { publishRetentionSwept } from '../../src/conversations/retention.ts';
import { logger, newOwner, rpcError, startChatStack, type ChatStack } from './harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack();
});
afterAll(async () => {
  await stack?.stop();
});

const DAY = 24 * 3600_000;
// The clock the sweep is given: a year from now, so every row made here is in its past.
const NOW = new Date(Date.now() + 365 * DAY);
const daysBefore = (days: number) => new Date(NOW.getTime() - days * DAY);
const NO_ANALYTICS = { analyticsDays: 0, questionGroups: 0 };

/** A conversation last active `activeDaysAgo` before NOW with `messages` messages, and a lead made `leadDaysAgo` before NOW when given. */
async function conversation(ownerId: string, activeDaysAgo: number, messages = 2, leadDaysAgo?: number) {
  const db = stack.parts.prisma;
  const chatbotId = randomUUID();
  const c = await db.conversation.create({ data: { chatbotId, ownerId, sessionId: randomUUID(), messageCount: messages } });
  for (let i = 0; i < messages; i++)
    await db.message.create({ data: { conversationId: c.id, role: i % 2 ? 'assistant' : 'user', content: `m${i}` } });
  if (leadDaysAgo !== undefined) {
    const lead = await db.lead.create({ data: { conversationId: c.id, chatbotId, ownerId, email: 'jo@example.com' } });
    await db.$executeRaw`UPDATE "Lead" SET "createdAt" = ${daysBefore(leadDaysAgo)} WHERE "id" = ${lead.id}::uuid`;
  }
  await db.$executeRaw`UPDATE "Conversation" SET "updatedAt" = ${daysBefore(activeDaysAgo)} WHERE "id" = ${c.id}::uuid`;
  return c.id;
}

const remaining = async (ownerId: string) => ({
  conversations: (await stack.parts.prisma.conversation.findMany({ where: { ownerId }, select: { id: true } })).map((c) => c.id).sort(),
  messages: await stack.parts.prisma.message.count({ where: { conversation: { ownerId } } }),
  leads: await stack.parts.prisma.lead.count({ where: { ownerId } }),
});

describe('retention windows', () => {
  it('deletes exactly what is past each window, in batches, and nothing more when run again; the preview counted it', async () => {
    const [a, b, untouched] = [newOwner('ret-a'), newOwner('ret-b'), newOwner('ret-none')];
    // a: conversations kept 30 days, leads 90. b: conversations forever, leads 7 days.
    const aOld = [await conversation(a, 31, 2, 31), await conversation(a, 45, 3), await conversation(a, 400, 1)];
    const aKept = [await conversation(a, 29, 2, 120), await conversation(a, 1, 4)];
    const bConversations = [await conversation(b, 500, 2, 8), await conversation(b, 2, 2, 6)];
    await conversation(untouched, 1000, 2, 1000);
    await stack.client.setRetention({ ownerId: a, windows: { conversationDays: 30, leadDays: 90 } });
    await stack.client.setRetention({ ownerId: b, windows: { leadDays: 7 } });

    const previewA = await previewRetention(stack.parts.prisma, a, { conversationDays: 30, leadDays: 90 }, NOW);
    const previewB = await previewRetention(stack.parts.prisma, b, { conversationDays: null, leadDays: 7 }, NOW);
    // The lead of a's conversation active 29 days ago was made 120 days ago: past the lead window on its own.
    expect(previewA).toEqual({ conversations: 3, messages: 6, leads: 2, ...NO_ANALYTICS });
    expect(previewB).toEqual({ conversations: 0, messages: 0, leads: 1, ...NO_ANALYTICS });

    const recorded: [string, RetentionCounts][] = [];
    const swept = await sweepRetention(stack.parts.prisma, NOW, (ownerId, counts) => void recorded.push([ownerId, counts]), 2);
    expect(swept.get(a)).toEqual(previewA);
    expect(swept.get(b)).toEqual(previewB);
    expect(recorded.filter(([o]) => o === a || o === b || o === untouched).sort()).toEqual(
      [
        [a, previewA],
        [b, previewB],
      ].sort(),
    );
    expect(await remaining(a)).toEqual({ conversations: [...aKept].sort(), messages: 6, leads: 0 });
    expect(await remaining(b)).toEqual({ conversations: [...bConversations].sort(), messages: 4, leads: 1 });
    expect(await remaining(untouched)).toMatchObject({ messages: 2, leads: 1 });
    for (const id of aOld) expect(await stack.parts.prisma.conversation.findUnique({ where: { id } })).toBeNull();

    // Run again at the same time: nothing more goes, nothing is reported.
    const again: string[] = [];
    const second = await sweepRetention(stack.parts.prisma, NOW, (ownerId) => void again.push(ownerId), 2);
    expect(second.get(a)).toBeUndefined();
    expect(again.filter((o) => o === a || o === b)).toEqual([]);
    expect(await previewRetention(stack.parts.prisma, a, { conversationDays: 30, leadDays: 90 }, NOW)).toEqual({
      conversations: 0,
      messages: 0,
      leads: 0,
      ...NO_ANALYTICS,
    });
  });

  it("tells auth each workspace's counts on parley.retention-swept, as the sweep reported them", async () => {
    const owner = newOwner('ret-audit');
    await conversation(owner, 50, 3, 50);
    await stack.client.setRetention({ ownerId: owner, windows: { conversationDays: 30 } });
    const producer = createProducer(stack.redis, QUEUES.retentionSwept, RetentionSweptSchema, { prefix: stack.prefix });
    const queue = new Queue(QUEUES.retentionSwept, { connection: stack.redis, prefix: stack.prefix });
    try {
      const swept = await sweepRetention(stack.parts.prisma, NOW, (ownerId, counts) =>
        publishRetentionSwept(producer, ownerId, counts, logger),
      );
      const events = (await queue.getJobs(['waiting', 'delayed', 'prioritized']))
        .map((j) => fromJson(RetentionSweptSchema, j.data as JsonValue))
        .filter((e) => e.ownerId === owner);
      expect(events.map((e) => [e.service, Number(e.conversations), Number(e.messages), Number(e.leads)])).toEqual([['chat', 1, 3, 1]]);
      expect(swept.get(owner)).toEqual({ conversations: 1, messages: 3, leads: 1, ...NO_ANALYTICS });
    } finally {
      await queue.close();
      await producer.close();
    }
  });

  it('lets two sweeps at once delete each row once', async () => {
    const owner = newOwner('ret-race');
    for (let i = 0; i < 9; i++) await conversation(owner, 60, 1);
    const windows = { conversationDays: 30, leadDays: null };
    const [x, y] = await Promise.all([
      sweepWorkspace(stack.parts.prisma, owner, windows, NOW, 2),
      sweepWorkspace(stack.parts.prisma, owner, windows, NOW, 2),
    ]);
    expect(x.conversations + y.conversations).toBe(9);
    expect(x.messages + y.messages).toBe(9);
    expect((await remaining(owner)).conversations).toEqual([]);
  });

  it('reads forever for a workspace without windows, and refuses a window under 7 days or past 36,500', async () => {
    const owner = newOwner('ret-rpc');
    expect((await stack.client.getRetention({ ownerId: owner })).windows?.conversationDays).toBeUndefined();
    for (const days of [0, 6, 36_501]) {
      const err = await rpcError(stack.client.setRetention({ ownerId: owner, windows: { conversationDays: days } }));
      expect(err.code).toBe(Code.InvalidArgument);
      expect(err.rawMessage).toBe(RETENTION_DAYS_INVALID);
    }
    const set = await stack.client.setRetention({ ownerId: owner, windows: { conversationDays: 7, leadDays: 36_500 } });
    expect(set.windows).toMatchObject({ conversationDays: 7, leadDays: 36_500 });
    const back = await stack.client.setRetention({ ownerId: owner, windows: {} });
    expect(back.windows?.conversationDays).toBeUndefined();
    expect((await stack.client.previewRetention({ ownerId: owner, windows: { conversationDays: 7 } })).counts).toMatchObject({
      conversations: 0n,
    });
  });
  it('deletes the analytics aggregates past the analytics window, day by day, once; the preview counted them; audited as analytics', async () => {
    const db = stack.parts.prisma;
    const [owner, other] = [newOwner('ret-an'), newOwner('ret-an-other')];
    const [bot, otherBot] = [randomUUID(), randomUUID()];
    const utcDate = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
    const day = (daysAgo: number) => utcDate(daysBefore(daysAgo));
    // Days 100, 40 and 31 before NOW are past a 30-day window; 29 and 1 are kept. The other workspace has no window.
    const ages = [100, 40, 31, 29, 1];
    for (const age of ages) {
      await db.analyticsDay.create({ data: { chatbotId: bot, ownerId: owner, day: day(age), messages: 3 } });
      await db.analyticsVisitor.create({ data: { chatbotId: bot, day: day(age), visitorHash: `v${age}` } });
      await db.analyticsDay.create({ data: { chatbotId: otherBot, ownerId: other, day: day(age), messages: 3 } });
    }
    // A visitor's year of days, every bit set, in the cutoff's year and the year before it.
    const cutoffDay = day(30);
    const year = cutoffDay.getUTCFullYear();
    const ones = '1'.repeat(366);
    await db.$executeRaw`INSERT INTO "AnalyticsVisitorYear" ("chatbotId", "year", "visitorHash", "days")
      VALUES (${bot}::uuid, ${year}, 'v', ${ones}::bit(366)), (${bot}::uuid, ${year - 1}, 'v', ${ones}::bit(366))`;
    // A group last seen 50 days before NOW (goes whole) and one seen yesterday with an old day (loses it and its count).
    const stale = await db.questionCluster.create({
      data: { chatbotId: bot, ownerId: owner, kind: 'asked', question: 'old?', lexemes: ['old'], count: 2, lastSeen: daysBefore(50) },
    });
    const live = await db.questionCluster.create({
      data: { chatbotId: bot, ownerId: owner, kind: 'asked', question: 'price?', lexemes: ['price'], count: 7, lastSeen: daysBefore(1) },
    });
    await db.questionClusterDay.createMany({
      data: [
        { clusterId: stale.id, day: day(50), count: 2 },
        { clusterId: live.id, day: day(60), count: 4 },
        { clusterId: live.id, day: day(1), count: 3 },
      ],
    });
    const windows = { conversationDays: null, leadDays: null, analyticsDays: 30 };
    await stack.client.setRetention({ ownerId: owner, windows: { analyticsDays: 30 } });
    expect((await stack.client.getRetention({ ownerId: owner })).windows?.analyticsDays).toBe(30);

    const preview = await previewRetention(db, owner, windows, NOW);
    expect(preview).toEqual({ conversations: 0, messages: 0, leads: 0, analyticsDays: 3, questionGroups: 1 });

    const producer = createProducer(stack.redis, QUEUES.retentionSwept, RetentionSweptSchema, { prefix: stack.prefix });
    const queue = new Queue(QUEUES.retentionSwept, { connection: stack.redis, prefix: stack.prefix });
    try {
      const swept = await sweepRetention(db, NOW, (ownerId, counts) => publishRetentionSwept(producer, ownerId, counts, logger), 2);
      expect(swept.get(owner)).toEqual(preview);
      expect(swept.has(other)).toBe(false);
      const events = (await queue.getJobs(['waiting', 'delayed', 'prioritized']))
        .map((j) => fromJson(RetentionSweptSchema, j.data as JsonValue))
        .filter((e) => e.ownerId === owner);
      expect(events.map((e) => [e.service, e.kind, Number(e.analyticsDays), Number(e.questionGroups), Number(e.conversations)])).toEqual([
        ['chat', 'analytics', 3, 1, 0],
      ]);
    } finally {
      await queue.close();
      await producer.close();
    }

    const keptDays = (await db.analyticsDay.findMany({ where: { ownerId: owner }, orderBy: { day: 'asc' } })).map((d) => d.day.getTime());
    expect(keptDays).toEqual([day(29).getTime(), day(1).getTime()]);
    expect(await db.analyticsDay.count({ where: { ownerId: other } })).toBe(ages.length);
    expect((await db.analyticsVisitor.findMany({ where: { chatbotId: bot } })).map((v) => v.visitorHash).sort()).toEqual(['v1', 'v29']);
    // The year before the cutoff's is gone; in the cutoff's year, the days before the cutoff's day are cleared.
    const years = await db.$queryRaw<{ year: number; days: string }[]>`
      SELECT "year", "days"::text AS "days" FROM "AnalyticsVisitorYear" WHERE "chatbotId" = ${bot}::uuid`;
    const firstKept = (cutoffDay.getTime() - Date.UTC(year, 0, 1)) / DAY;
    const daysInYear = (Date.UTC(year + 1, 0, 1) - Date.UTC(year, 0, 1)) / DAY;
    expect(years).toEqual([{ year, days: '0'.repeat(firstKept) + '1'.repeat(daysInYear - firstKept) + '0'.repeat(366 - daysInYear) }]);
    expect(await db.questionCluster.findUnique({ where: { id: stale.id } })).toBeNull();
    expect(await db.questionCluster.findUniqueOrThrow({ where: { id: live.id } })).toMatchObject({ count: 3 });
    expect((await db.questionClusterDay.findMany({ where: { clusterId: live.id } })).map((d) => d.count)).toEqual([3]);

    // Again: nothing more.
    const again = await sweepRetention(db, NOW, () => {});
    expect(again.has(owner)).toBe(false);
    expect(await previewRetention(db, owner, windows, NOW)).toEqual({ conversations: 0, messages: 0, leads: 0, ...NO_ANALYTICS });
  });
});
