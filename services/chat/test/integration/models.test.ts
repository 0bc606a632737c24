// Every chatbot answers with the model its owner chose, from any provider, billed at that model's
// price: a chatbot on each provider answers through its SDK and fake and is billed exactly its
// model's price by billing's own worker; a fallback answers once when the chosen model fails before
// its first token, and only the model that answered is billed; the hold of an expensive model never
// lets a balance go below zero. Real chatbot and billing services, PostgreSQL, Redis.
import { Queue } from 'bullmq';
import { Prisma } from '@parley/billing/generated/prisma/client.ts';
import { QUEUES } from '@parley/common/queues.ts';
import { answerCostUnits, dollarUnits, loadCatalogue } from '@parley/common/models/catalogue.ts';
import { registry } from '@parley/common/metrics.ts';
import { startFakeAnthropic, type FakeAnthropic } from '@parley/common/testing/fake-anthropic.ts';
import { geminiAsOpenAIMessages, startFakeGemini, type FakeGemini } from '@parley/common/testing/fake-gemini.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { maxPromptTokens } from '../../src/public-chat/credit-hold.ts';
import { rpcError, session, startChatStack, visitor, type ChatStack, type ChatUnderTest } from './harness.ts';

const ANSWER_FAILED = 'The chatbot could not answer right now. Please try again.';
const KNOWLEDGE = ['The museum opens at ten and closes at six, every day but Monday.'];
const QUESTION = 'Is the museum open every day?';
const catalogue = loadCatalogue({});

let stack: ChatStack;
let chat: ChatUnderTest;
let anthropic: FakeAnthropic;
let gemini: FakeGemini;
beforeAll(async () => {
  [anthropic, gemini] = await Promise.all([startFakeAnthropic(), startFakeGemini()]);
  stack = await startChatStack();
  chat = await stack.startChat({
    ANTHROPIC_API_KEY: 'test-anthropic-key',
    ANTHROPIC_BASE_URL: anthropic.url,
    GEMINI_API_KEY: 'test-gemini-key',
    GEMINI_BASE_URL: gemini.url,
    CHAT_RATE_PER_VISITOR: '10000',
    CHAT_RATE_PER_BOT: '10000',
  });
});
afterAll(async () => {
  await stack?.stop();
  await Promise.all([anthropic?.close(), gemini?.close()]);
});
beforeEach(() => {
  stack.fake.reset();
  anthropic.reset();
  gemini.reset();
});

/** A chatbot whose owner chose `modelId` (and `fallbackModelId`), with credit. */
async function chatbotOn(modelId: string, fallbackModelId = '', credit = '10') {
  const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
  await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, model: { modelId, fallbackModelId } });
  await stack.setCredit(bot.ownerId, credit);
  return bot;
}

const units = dollarUnits;
const costOf = (modelId: string, prompt: number, completion: number) => answerCostUnits(catalogue.find(modelId)!, prompt, completion);
const unitsOf = (d: Prisma.Decimal) => units(d.toFixed(10));

const account = (ownerId: string) => stack.billing.prisma.account.findUniqueOrThrow({ where: { ownerId } });

async function fallbacksCounted(from: string, to: string): Promise<number> {
  const metric = await registry.getSingleMetric('parley_model_fallbacks_total')?.get();
  return metric?.values.find((v) => v.labels.from === from && v.labels.to === to)?.value ?? 0;
}

describe("a chatbot answers with its owner's model and is billed at its price", () => {
  const requestsTo = (provider: string) =>
    provider === 'openai' ? stack.fake.requests.length : provider === 'anthropic' ? anthropic.requests.length : gemini.requests.length;

  it.each(['gpt-4.1-mini', 'claude-haiku-4-5', 'gemini-2.5-flash'])('%s: answers whole and streamed, billed exactly', async (modelId) => {
    const provider = catalogue.find(modelId)!.provider;
    const bot = await chatbotOn(modelId);
    const res = await chat.client.sendMessage(visitor(bot.uniqueId, QUESTION, { sessionId: session(`m-${modelId}`) }));
    // The fakes answer as the prompt asks: from the passage, citing it.
    expect(res.message).toBe('The museum opens at ten and closes at six, every day but Monday. [1]');
    expect(res.sources).toHaveLength(1);
    let streamed = '';
    for await (const ev of chat.client.streamMessage(visitor(bot.uniqueId, QUESTION, { sessionId: session(`ms-${modelId}`) })))
      if (ev.event.case === 'delta') streamed += ev.event.value;
    expect(streamed).toBe(res.message);
    expect(requestsTo(provider)).toBe(2);
    const others = ['openai', 'anthropic', 'gemini'].filter((p) => p !== provider);
    for (const other of others) expect(requestsTo(other)).toBe(0);

    const usage = (await stack.usageJobs()).filter((u) => u.chatbotId === bot.id);
    expect(usage.map((u) => [u.model, u.provider, u.fallback])).toEqual([
      [modelId, provider, false],
      [modelId, provider, false],
    ]);
    // The stored exchange names the model that answered, so a reconciled hold bills it too.
    const stored = await chat.parts.prisma.message.findMany({ where: { conversation: { chatbotId: bot.id }, role: 'assistant' } });
    expect(stored.map((m) => (m.usage as { model: string; provider: string }).model)).toEqual([modelId, modelId]);
    expect(stored.map((m) => (m.usage as { provider: string }).provider)).toEqual([provider, provider]);

    await stack.applyUsage();
    const records = await stack.billing.prisma.usageRecord.findMany({ where: { ownerId: bot.ownerId } });
    expect(records).toHaveLength(2);
    let expected = 0n;
    for (const r of records) {
      const u = usage.find((x) => x.requestId === r.requestId)!;
      const cost = costOf(modelId, Number(u.promptTokens), Number(u.completionTokens));
      expect(unitsOf(r.totalCost)).toBe(cost);
      expect([r.model, r.provider]).toEqual([modelId, provider]);
      expected += cost;
    }
    const { creditBalance, reservedCredit } = await account(bot.ownerId);
    expect(units('10') - unitsOf(creditBalance)).toBe(expected);
    expect(reservedCredit.toFixed()).toBe('0');
  });

  it('answers with the catalogue default when the chatbot names a model the deployment does not offer', async () => {
    // gpt-4o is offered (OpenAI has a key) but a stale id reads as the default.
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.setCredit(bot.ownerId, '1');
    const res = await chat.client.sendMessage(visitor(bot.uniqueId, QUESTION, { model: 'gpt-4o-mini' }));
    expect(res.message).toContain('[1]');
    expect(stack.fake.requests.at(-1)?.model).toBe('gpt-4o-mini');
    expect((await stack.usageJobs()).filter((u) => u.chatbotId === bot.id).map((u) => u.model)).toEqual(['gpt-4o-mini']);
  });

  it('fits the prompt and the output to the model', async () => {
    const bot = await chatbotOn('claude-haiku-4-5');
    await chat.client.sendMessage(visitor(bot.uniqueId, QUESTION));
    const sent = anthropic.requests.at(-1)!;
    expect(sent.model).toBe('claude-haiku-4-5');
    expect(sent.max_tokens).toBe(Math.min(chat.config.MAX_OUTPUT_TOKENS, catalogue.find('claude-haiku-4-5')!.maxOutputTokens));
    expect(typeof sent.system).toBe('string');
    expect(sent.system as string).toContain('<knowledge_base>');
    expect(sent.messages.map((m) => m.role)).toEqual(['user']);
  });
});

describe('the fallback', () => {
  it.each([
    ['overloaded', 529],
    ['rate limited', 429],
    ['failing', 500],
  ])('answers once when the chosen model is %s before its first token; only the fallback is billed', async (_label, status) => {
    const bot = await chatbotOn('claude-haiku-4-5', 'gemini-2.5-flash');
    anthropic.setBehaviour({ failWith: status });
    const before = await fallbacksCounted('claude-haiku-4-5', 'gemini-2.5-flash');
    let streamed = '';
    for await (const ev of chat.client.streamMessage(visitor(bot.uniqueId, QUESTION)))
      if (ev.event.case === 'delta') streamed += ev.event.value;
    expect(streamed).toBe('The museum opens at ten and closes at six, every day but Monday. [1]');
    expect([anthropic.requests.length, gemini.requests.length]).toEqual([1, 1]);
    expect(await fallbacksCounted('claude-haiku-4-5', 'gemini-2.5-flash')).toBe(before + 1);

    const usage = (await stack.usageJobs()).filter((u) => u.chatbotId === bot.id);
    expect(usage.map((u) => [u.model, u.provider, u.fallback])).toEqual([['gemini-2.5-flash', 'gemini', true]]);
    await stack.applyUsage();
    const records = await stack.billing.prisma.usageRecord.findMany({ where: { ownerId: bot.ownerId } });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ model: 'gemini-2.5-flash', provider: 'gemini', fallback: true });
    expect(unitsOf(records[0].totalCost)).toBe(
      costOf('gemini-2.5-flash', Number(usage[0].promptTokens), Number(usage[0].completionTokens)),
    );
    const { creditBalance, reservedCredit } = await account(bot.ownerId);
    expect(units('10') - unitsOf(creditBalance)).toBe(unitsOf(records[0].totalCost));
    expect(reservedCredit.toFixed()).toBe('0');
  });

  it("is shown to the owner in the conversation's detail (History and the inbox): each answer's model, and that the fallback gave it", async () => {
    const bot = await chatbotOn('claude-haiku-4-5', 'gemini-2.5-flash');
    await stack.makePro(bot.ownerId);
    const sessionId = session('fallback-shown');
    await chat.client.sendMessage(visitor(bot.uniqueId, QUESTION, { sessionId }));
    anthropic.setBehaviour({ failWith: 529 });
    await chat.client.sendMessage(visitor(bot.uniqueId, QUESTION, { sessionId }));
    const named = (id: string) => ({ id, displayName: catalogue.find(id)!.displayName, provider: catalogue.find(id)!.provider });
    const expected = [
      ['user', undefined, false],
      ['assistant', named('claude-haiku-4-5'), false],
      ['user', undefined, false],
      ['assistant', named('gemini-2.5-flash'), true],
    ];
    const shown = (messages: { role: string; answeredBy?: { id: string; displayName: string; provider: string }; fallback: boolean }[]) =>
      messages.map((m) => [
        m.role,
        m.answeredBy && { id: m.answeredBy.id, displayName: m.answeredBy.displayName, provider: m.answeredBy.provider },
        m.fallback,
      ]);

    const [listed] = (await chat.client.listConversations({ ownerId: bot.ownerId, chatbotId: bot.id })).conversations;
    const { conversation } = await chat.client.getConversation({ ownerId: bot.ownerId, chatbotId: bot.id, conversationId: listed!.id });
    expect(shown(conversation!.messages)).toEqual(expected);
    expect(named('gemini-2.5-flash').displayName).toBe('Gemini 2.5 Flash');
    const inbox = await chat.client.getInboxConversation({ ownerId: bot.ownerId, conversationId: listed!.id });
    expect(shown(inbox.conversation!.messages)).toEqual(expected);
  });

  it('answers when the chosen provider cannot be reached at all', async () => {
    const down = await stack.startChat({
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      GEMINI_API_KEY: 'k',
      GEMINI_BASE_URL: gemini.url,
    });
    const bot = await chatbotOn('claude-haiku-4-5', 'gemini-2.5-flash');
    const res = await down.client.sendMessage(visitor(bot.uniqueId, QUESTION));
    expect(res.message).toContain('[1]');
    expect(gemini.requests).toHaveLength(1);
  });

  it('is not asked when the chosen model refuses the key: the visitor is told as before, nothing is billed', async () => {
    const bot = await chatbotOn('claude-haiku-4-5', 'gemini-2.5-flash');
    anthropic.setBehaviour({ failWith: 401 });
    const err = await rpcError(chat.client.sendMessage(visitor(bot.uniqueId, QUESTION)));
    expect(err.rawMessage).toBe(ANSWER_FAILED);
    expect(gemini.requests).toHaveLength(0);
    expect((await stack.usageJobs()).filter((u) => u.chatbotId === bot.id)).toEqual([]);
    expect((await account(bot.ownerId)).reservedCredit.toFixed()).toBe('0');
  });

  it('holds at the price of the dearer of the two models', async () => {
    const bot = await chatbotOn('gemini-2.5-flash', 'claude-haiku-4-5');
    gemini.setBehaviour({ delayMs: 300 });
    const answer = chat.client.sendMessage(visitor(bot.uniqueId, QUESTION));
    let held: Prisma.Decimal | undefined;
    while (!held) {
      held = (await stack.billing.prisma.creditReservation.findFirst({ where: { ownerId: bot.ownerId } }))?.amount;
      if (!held) await new Promise((r) => setTimeout(r, 10));
    }
    await answer;
    // The prompt's bound is the same for either model; claude-haiku-4-5 costs more per token on both sides.
    const prompt = geminiAsOpenAIMessages(gemini.requests[0]!).map((m) => ({ role: m.role as 'system' | 'user', content: m.content }));
    const promptTokens = maxPromptTokens(prompt);
    expect(unitsOf(held)).toBe(costOf('claude-haiku-4-5', promptTokens, chat.config.MAX_OUTPUT_TOKENS));
    expect(unitsOf(held)).toBeGreaterThan(costOf('gemini-2.5-flash', promptTokens, chat.config.MAX_OUTPUT_TOKENS));
    // Billed at the model that answered.
    const [usage] = (await stack.usageJobs()).filter((u) => u.chatbotId === bot.id);
    expect([usage?.model, usage?.fallback]).toEqual(['gemini-2.5-flash', false]);
  });
});

describe('a lost usage', () => {
  it('is billed from the stored exchange at the price of the model that answered', async () => {
    const bot = await chatbotOn('gemini-2.5-flash');
    await chat.client.sendMessage(visitor(bot.uniqueId, QUESTION, { sessionId: session('lost-gemini') }));
    // What a process killed before publishing leaves: the answer's UsageRecorded gone unread, its hold expired.
    await chat.parts.flushEvents();
    const queue = new Queue(QUEUES.usageRecorded, { connection: stack.redis, prefix: stack.prefix });
    try {
      await queue.obliterate({ force: true });
    } finally {
      await queue.close();
    }
    await stack.billing.prisma.creditReservation.updateMany({
      where: { ownerId: bot.ownerId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await chat.parts.reconcileHolds()).toEqual({ settled: 1, released: 0 });
    await chat.parts.flushEvents();
    await stack.applyUsage();
    const [record, ...more] = await stack.billing.prisma.usageRecord.findMany({ where: { ownerId: bot.ownerId } });
    expect(more).toEqual([]);
    expect([record!.model, record!.provider]).toEqual(['gemini-2.5-flash', 'gemini']);
    expect(unitsOf(record!.totalCost)).toBe(costOf('gemini-2.5-flash', record!.promptTokens, record!.completionTokens));
  });
});

describe('holding credit for an expensive model', () => {
  it('answers at most what the balance covers of 100 concurrent messages, and never goes below zero', async () => {
    const bot = await chatbotOn('claude-haiku-4-5', '', '0');
    // What one answer holds: learnt from one hold made and released again.
    await stack.setCredit(bot.ownerId, '10');
    anthropic.setBehaviour({ delayMs: 200 });
    const probe = chat.client.sendMessage(visitor(bot.uniqueId, QUESTION, { sessionId: session('probe-expensive') }));
    let hold: Prisma.Decimal | undefined;
    while (!hold) {
      hold = (await stack.billing.prisma.creditReservation.findFirst({ where: { ownerId: bot.ownerId } }))?.amount;
      if (!hold) await new Promise((r) => setTimeout(r, 10));
    }
    await probe;
    anthropic.setBehaviour({ delayMs: 0 });
    await stack.applyUsage();
    const probeId = (await stack.usageJobs()).find((u) => u.chatbotId === bot.id)!.requestId;
    const k = 5;
    const start = hold.mul(k).add(hold.div(2).toDecimalPlaces(10, Prisma.Decimal.ROUND_DOWN));
    await stack.setCredit(bot.ownerId, start.toFixed());
    anthropic.reset();

    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        chat.client.sendMessage(visitor(bot.uniqueId, QUESTION, { sessionId: session(`expensive-${i}`), clientIp: `198.51.100.${i}` })),
      ),
    );
    // Nothing settles meanwhile (billing's usage worker is not running), so exactly k holds fit.
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(k);
    expect(anthropic.requests).toHaveLength(k);
    await stack.applyUsage();
    const records = await stack.billing.prisma.usageRecord.findMany({ where: { ownerId: bot.ownerId, requestId: { not: probeId } } });
    expect(records).toHaveLength(k);
    expect(records.every((r) => r.model === 'claude-haiku-4-5')).toBe(true);
    const spent = records.reduce((sum, r) => sum.add(r.totalCost), new Prisma.Decimal(0));
    const { creditBalance, reservedCredit } = await account(bot.ownerId);
    expect(creditBalance.toFixed()).toBe(start.sub(spent).toFixed());
    expect(creditBalance.gte(0)).toBe(true);
    expect(reservedCredit.toFixed()).toBe('0');
  });
});
