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
    expect(previewA).toEqual({ conversations: 3, messages: 6, leads: 2 });
    expect(previewB).toEqual({ conversations: 0, messages: 0, leads: 1 });

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
      expect(swept.get(owner)).toEqual({ conversations: 1, messages: 3, leads: 1 });
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
});
