// An answer the visitor received is billed even when the process that gave it died before its
// UsageRecorded was published (ADR 37): its batch is lost here as a killed process loses it (the
// queue emptied before billing read it), its hold expires, and the reconciliation settles it from
// the stored exchange at the answer's own tokens and model, once however often it runs; a hold with
// no stored answer is released. Real billing (its own usage worker applying what is published),
// chatbot service, PostgreSQL, Redis; the model is the fake OpenAI server.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '@parley/common/queues.ts';
import { Prisma } from '@parley/billing/generated/prisma/client.ts';
import { session, startChatStack, visitor, type ChatStack } from './harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack({ CHAT_RATE_PER_VISITOR: '10000', CHAT_RATE_PER_BOT: '10000' });
});
afterAll(async () => {
  await stack?.stop();
});

const holds = (ownerId: string) => stack.billing.prisma.creditReservation.findMany({ where: { ownerId } });
const usageRecords = (ownerId: string) => stack.billing.prisma.usageRecord.findMany({ where: { ownerId } });
const account = (ownerId: string) => stack.billing.prisma.account.findUniqueOrThrow({ where: { ownerId } });

/** What a process killed before publishing leaves: the answers' UsageRecorded jobs gone unread. */
async function loseTheUsageBatch(): Promise<void> {
  await stack.parts.flushEvents();
  const queue = new Queue(QUEUES.usageRecorded, { connection: stack.redis, prefix: stack.prefix });
  try {
    await queue.obliterate({ force: true });
  } finally {
    await queue.close();
  }
}

const expire = (ownerId: string) =>
  stack.billing.prisma.creditReservation.updateMany({ where: { ownerId }, data: { expiresAt: new Date(Date.now() - 1000) } });

const reconcile = async () => {
  const round = await stack.parts.reconcileHolds();
  await stack.parts.flushEvents();
  return round;
};

describe('holds whose usage was lost', () => {
  it('settles an answered one from the stored exchange, once, and releases one with no stored answer', async () => {
    const bot = await stack.newChatbot({ knowledge: ['The museum opens at ten and closes at six.'] });
    await stack.setCredit(bot.ownerId, '10');
    const answered = await stack.client.sendMessage(visitor(bot.uniqueId, 'When does the museum open?', { sessionId: session('lost') }));
    expect(answered.message).not.toBe('');
    await loseTheUsageBatch();
    // A hold whose answer never came (the process died while the model was asked).
    await stack.billingClient.reserveCredit({
      requestId: `orphan-${bot.id}`,
      ownerId: bot.ownerId,
      model: 'gpt-4o-mini',
      maxPromptTokens: 100n,
      maxCompletionTokens: 100n,
    });
    expect(await holds(bot.ownerId)).toHaveLength(2);
    await expire(bot.ownerId);

    // Two workers reconciling before billing applies either (or the lost event arriving after all): billed once.
    expect(await reconcile()).toEqual({ settled: 1, released: 1 });
    expect(await reconcile()).toEqual({ settled: 1, released: 0 });
    await stack.applyUsage();
    const [record, ...more] = await usageRecords(bot.ownerId);
    expect(more).toEqual([]);
    // Billed at what the model reported for this answer, as the lost event carried it.
    expect(record.model).toBe('gpt-4o-mini');
    expect(record.chatbotId).toBe(bot.id);
    expect(record.promptTokens).toBeGreaterThan(0);
    expect(record.completionTokens).toBeGreaterThan(0);
    expect(await holds(bot.ownerId)).toEqual([]);
    const { creditBalance, reservedCredit } = await account(bot.ownerId);
    expect(reservedCredit.toFixed()).toBe('0');
    expect(creditBalance.toFixed()).toBe(new Prisma.Decimal('10').sub(record.promptCost).sub(record.completionCost).toFixed());

    // Nothing is left to reconcile, and the balance stays.
    expect(await reconcile()).toEqual({ settled: 0, released: 0 });
    await stack.applyUsage();
    expect(await usageRecords(bot.ownerId)).toHaveLength(1);
    expect((await account(bot.ownerId)).creditBalance.toFixed()).toBe(creditBalance.toFixed());
  });

  it('leaves holds that have not expired alone', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Tickets cost twelve pounds.'] });
    await stack.setCredit(bot.ownerId, '10');
    await stack.client.sendMessage(visitor(bot.uniqueId, 'How much are tickets?', { sessionId: session('fresh') }));
    await loseTheUsageBatch();
    expect(await holds(bot.ownerId)).toHaveLength(1);
    await reconcile();
    expect(await holds(bot.ownerId)).toHaveLength(1);
    expect(await usageRecords(bot.ownerId)).toEqual([]);
  });
});
