// Credit that cannot be overdrawn: every answer that calls the model first holds its largest
// possible cost against the owner's credit in billing (ReserveCredit), is settled to its exact cost
// by its UsageRecorded (applied here by billing's own worker), and releases its hold when the model
// fails. Real billing, chatbot service, PostgreSQL, Redis; the model is the fake OpenAI server.
import { Code } from '@connectrpc/connect';
import { USER_MESSAGE_HEADER } from '@parley/common/rpc-errors.ts';
import { Prisma } from '@parley/billing/generated/prisma/client.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { maxPromptTokens } from '../../src/public-chat/credit-hold.ts';
import { rpcError, session, startChatStack, visitor, type ChatStack, type ChatUnderTest } from './harness.ts';

const UNAVAILABLE = 'This chatbot is temporarily unavailable. Please try again later.';
const ANSWER_FAILED = 'The chatbot could not answer right now. Please try again.';
const KNOWLEDGE = ['The museum opens at ten and closes at six, every day but Monday.'];
const QUESTION = 'When does the museum open?';

let stack: ChatStack;
/** Rate limits out of the way: only credit decides here. */
let chat: ChatUnderTest;
beforeAll(async () => {
  stack = await startChatStack();
  chat = await stack.startChat({ CHAT_RATE_PER_VISITOR: '10000', CHAT_RATE_PER_BOT: '10000' });
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.fake.reset());

const account = (ownerId: string) => stack.billing.prisma.account.findUniqueOrThrow({ where: { ownerId } });
const holds = (ownerId: string) => stack.billing.prisma.creditReservation.findMany({ where: { ownerId } });
const usageOf = async (bot: { id: string }) => (await stack.usageJobs()).filter((u) => u.chatbotId === bot.id);

/** The balance is the sum of its ledger, and nothing is held any more. */
async function expectSettled(ownerId: string) {
  const { creditBalance, reservedCredit } = await account(ownerId);
  const { _sum } = await stack.billing.prisma.creditLedgerEntry.aggregate({ where: { ownerId }, _sum: { amount: true } });
  expect(_sum.amount!.toFixed()).toBe(creditBalance.toFixed());
  expect(reservedCredit.toFixed()).toBe('0');
  expect(await holds(ownerId)).toEqual([]);
  return creditBalance;
}

/**
 * A chatbot and the amount ReserveCredit holds for QUESTION as a first message of a session (every
 * such prompt is the same): learnt from the prompt the model received for a probe message on a
 * twin chatbot, held once and released again.
 */
async function chatbotWithHoldAmount() {
  const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
  const twin = await stack.newChatbot({ knowledge: KNOWLEDGE });
  await chat.client.sendMessage(visitor(twin.uniqueId, QUESTION));
  const prompt = stack.fake.requests[0].messages.map((m) => ({ role: m.role as 'system' | 'user', content: m.content }));
  stack.fake.reset();
  await stack.setCredit(bot.ownerId, '10');
  const probe = {
    requestId: `probe-${bot.id}`,
    ownerId: bot.ownerId,
    model: 'gpt-4o-mini',
    maxPromptTokens: BigInt(maxPromptTokens(prompt)),
    maxCompletionTokens: 800n,
  };
  const { amount } = await stack.billingClient.reserveCredit(probe);
  expect(await stack.billingClient.releaseCredit({ requestId: probe.requestId })).toMatchObject({ released: true });
  return { bot, hold: new Prisma.Decimal(amount) };
}

describe('holding credit before the model is called', () => {
  it('answers at most k of 100 concurrent messages on a balance that covers k holds, and never goes below zero', async () => {
    const { bot, hold } = await chatbotWithHoldAmount();
    const k = 7;
    const start = hold.mul(k).add(hold.div(2).toDecimalPlaces(10, Prisma.Decimal.ROUND_DOWN)); // k holds and half of another
    await stack.setCredit(bot.ownerId, start.toFixed());

    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        chat.client.sendMessage(visitor(bot.uniqueId, QUESTION, { sessionId: session(`burst-${i}`), clientIp: `198.51.100.${i}` })),
      ),
    );
    const answered = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    // Nothing settles meanwhile (billing's usage worker is not running), so exactly k holds fit.
    expect(answered).toHaveLength(k);
    expect(stack.fake.requests).toHaveLength(k);
    for (const err of refused) {
      expect(err).toMatchObject({ code: Code.Unavailable, rawMessage: UNAVAILABLE });
      expect(err.metadata.get(USER_MESSAGE_HEADER)).toBe('true');
    }

    // The k holds are the k answers' own, under their request ids, each the amount this prompt holds.
    const open = await holds(bot.ownerId);
    const usage = await usageOf(bot);
    expect(open.map((h) => h.requestId).sort()).toEqual(usage.map((u) => u.requestId).sort());
    expect(open.map((h) => h.amount.toFixed())).toEqual(Array(k).fill(hold.toFixed()));
    expect((await account(bot.ownerId)).reservedCredit.toFixed()).toBe(hold.mul(k).toFixed());
    const interactions = (await stack.interactionJobs()).filter((i) => i.chatbotId === bot.id);
    expect(interactions.map((i) => i.requestId).sort()).toEqual(usage.map((u) => u.requestId).sort());

    // Each answer is settled to its exact cost: the balance is what the k answers cost less, at or above zero.
    await stack.applyUsage();
    const balance = await expectSettled(bot.ownerId);
    const records = await stack.billing.prisma.usageRecord.findMany({ where: { ownerId: bot.ownerId } });
    expect(records).toHaveLength(k);
    const spent = records.reduce((sum, r) => sum.add(r.totalCost), new Prisma.Decimal(0));
    expect(spent.gt(0)).toBe(true);
    expect(balance.toFixed()).toBe(start.sub(spent).toFixed());
    expect(balance.gte(0)).toBe(true);
  });

  it('never goes below zero while answers are settled during the burst', async () => {
    const { bot, hold } = await chatbotWithHoldAmount();
    const start = hold.mul(2);
    await stack.setCredit(bot.ownerId, start.toFixed());
    const burst = Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        chat.client.sendMessage(visitor(bot.uniqueId, QUESTION, { sessionId: session(`settling-${i}`), clientIp: `198.51.100.${i}` })),
      ),
    );
    // Billing's usage worker settles answers while the others are still holding.
    await stack.applyUsage(burst);
    const answered = (await burst).filter((r) => r.status === 'fulfilled').length;
    const records = await stack.billing.prisma.usageRecord.findMany({ where: { ownerId: bot.ownerId } });
    const spent = records.reduce((sum, r) => sum.add(r.totalCost), new Prisma.Decimal(0));
    // A settled hold frees its unspent part, so more than 2 may be answered; but 100 answers would
    // cost more than the balance, and what was answered never does.
    expect(records[0].totalCost.mul(100).gt(start)).toBe(true);
    expect(answered).toBeGreaterThanOrEqual(2);
    expect(answered).toBeLessThan(100);
    expect(records).toHaveLength(answered);
    const balance = await expectSettled(bot.ownerId);
    expect(balance.toFixed()).toBe(start.sub(spent).toFixed());
    expect(balance.gte(0)).toBe(true);
  });

  it('holds and settles a streamed answer', async () => {
    const { bot, hold } = await chatbotWithHoldAmount();
    await stack.setCredit(bot.ownerId, '1');
    const reply = 'We open at ten, and close at six in the evening.';
    stack.fake.setBehaviour({ reply, chunkDelayMs: 20 });

    let heldWhileStreaming: string[] = [];
    const events = [];
    for await (const res of chat.client.streamMessage(visitor(bot.uniqueId, QUESTION))) {
      if (events.length === 0) heldWhileStreaming = (await holds(bot.ownerId)).map((h) => h.amount.toFixed());
      events.push(res.event);
    }
    expect(events.at(-1)).toMatchObject({ case: 'done', value: { message: reply } });
    expect(heldWhileStreaming).toEqual([hold.toFixed()]);
    const [usage] = await usageOf(bot);
    expect((await holds(bot.ownerId)).map((h) => h.requestId)).toEqual([usage.requestId]);

    await stack.applyUsage();
    const balance = await expectSettled(bot.ownerId);
    const record = await stack.billing.prisma.usageRecord.findUniqueOrThrow({ where: { requestId: usage.requestId } });
    expect(record.totalCost.lt(hold)).toBe(true);
    expect(balance.toFixed()).toBe(new Prisma.Decimal(1).sub(record.totalCost).toFixed());
  });
});

describe('releasing the hold of an answer not given', () => {
  async function expectReleased(bot: { id: string; ownerId: string }, balance: string) {
    // The release is made before the visitor hears of the failure.
    expect(await usageOf(bot)).toEqual([]);
    expect((await expectSettled(bot.ownerId)).toFixed()).toBe(balance);
    expect(await stack.billing.prisma.usageRecord.count({ where: { ownerId: bot.ownerId } })).toBe(0);
  }

  it('releases it when the provider fails, and bills nothing', async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.setCredit(bot.ownerId, '0.5');
    stack.fake.setBehaviour({ failWith: 500 });
    const err = await rpcError(chat.client.sendMessage(visitor(bot.uniqueId, QUESTION)));
    expect(err).toMatchObject({ code: Code.Unavailable, rawMessage: ANSWER_FAILED });
    expect(stack.fake.requests).toHaveLength(1);
    await expectReleased(bot, '0.5');
  });

  it('releases it when a streamed answer stalls past the deadline', async () => {
    const impatient = await stack.startChat({ OPENAI_TIMEOUT_MS: '400' });
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.setCredit(bot.ownerId, '0.5');
    stack.fake.setBehaviour({ reply: 'one two three four five six seven eight nine ten eleven twelve', chunkDelayMs: 300 });
    const err = await rpcError(
      (async () => {
        for await (const _ of impatient.client.streamMessage(visitor(bot.uniqueId, QUESTION))) void _;
      })(),
    );
    expect(err).toMatchObject({ code: Code.Unavailable, rawMessage: ANSWER_FAILED });
    await expectReleased(bot, '0.5');
  });

  it('answers "temporarily unavailable" without calling the model when billing cannot be reached', async () => {
    const cut = await stack.startChat({ BILLING_URL: 'http://127.0.0.1:9', RPC_TIMEOUT_MS: '1000' });
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    const err = await rpcError(cut.client.sendMessage(visitor(bot.uniqueId, QUESTION)));
    expect(err).toMatchObject({ code: Code.Unavailable, rawMessage: UNAVAILABLE });
    expect(err.metadata.get(USER_MESSAGE_HEADER)).toBe('true');
    expect(stack.fake.requests).toHaveLength(0);
    expect(await usageOf(bot)).toEqual([]);
  });
});
