// Issue 14's refusals through the chat service's RPCs, with the real chatbot service (its limits,
// embedding and defaults) and the real billing service: the day's spend is billing's own debit, to
// the pico-dollar; a visitor past the owner's limit gets the 429 and nothing is held; the site rule
// and the proof-of-work challenge on the public lookup.
import { Code } from '@connectrpc/connect';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPico, utcDay } from '../../src/public-chat/daily-limits.ts';
import { rpcError, startChatStack, visitor, type ChatStack } from './harness.ts';

const QUESTION = 'When does the museum open?';
const KNOWLEDGE = ['The museum opens at ten and closes at six, every day but Monday.'];

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe("the chatbot's spend today", () => {
  it("is billing's exact debit of each answer, at the prices ReserveCredit named (the default cap of $5.00 applies)", async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.setCredit(bot.ownerId, '10');
    for (let i = 0; i < 3; i++) await stack.client.sendMessage(visitor(bot.uniqueId, `${QUESTION} (${i})`));
    await stack.applyUsage();
    const records = await stack.billing.prisma.usageRecord.findMany({ where: { userId: bot.ownerId } });
    expect(records).toHaveLength(3);
    const debited = records.reduce((sum, r) => sum + toPico(r.totalCost.toFixed()), 0n);
    const key = redisKeys(stack.prefix).chatLimitSpendDay(bot.id, utcDay(new Date()));
    expect(await stack.redis.get(key)).toBe(debited.toString());
  });
});

describe("a visitor's messages today", () => {
  it("stop at the owner's limit with the 429, holding nothing for the refused message", async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.setCredit(bot.ownerId, '10');
    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, limits: { visitorMessagesPerDay: 2 } });
    await stack.client.sendMessage(visitor(bot.uniqueId, QUESTION));
    await stack.client.sendMessage(visitor(bot.uniqueId, QUESTION));
    const err = await rpcError(stack.client.sendMessage(visitor(bot.uniqueId, QUESTION)));
    expect(err).toMatchObject({
      code: Code.ResourceExhausted,
      rawMessage: "You've reached today's limit for this chat. Please come back tomorrow.",
    });
    expect(await stack.billing.prisma.creditReservation.count({ where: { userId: bot.ownerId } })).toBe(2);
    await expect(stack.client.sendMessage(visitor(bot.uniqueId, QUESTION, { clientIp: '203.0.113.99' }))).resolves.toBeTruthy();
  });

  it('do not count a message left without an answer: no credit, or the model failing', async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, limits: { visitorMessagesPerDay: 2 } });
    const ask = () => stack.client.sendMessage(visitor(bot.uniqueId, QUESTION, { clientIp: '203.0.113.50' }));
    await stack.setCredit(bot.ownerId, '0');
    for (let i = 0; i < 3; i++) expect((await rpcError(ask())).code).not.toBe(Code.ResourceExhausted);
    await stack.setCredit(bot.ownerId, '10');
    stack.fake.setBehaviour({ failWith: 500 });
    for (let i = 0; i < 3; i++) expect((await rpcError(ask())).code).toBe(Code.Unavailable);
    stack.fake.reset();
    // The owner's two messages a day are all still there.
    await ask();
    await ask();
    expect((await rpcError(ask())).code).toBe(Code.ResourceExhausted);
  });
});

describe('the public lookup and the challenge', () => {
  it('tell how the chatbot looks and where it runs, and refuse a site not listed', async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.chatbots.updateChatbot({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      embedding: { allowedDomains: { domains: ['shop.example.com'] } },
      limits: { proofOfWork: true },
    });
    const res = await stack.client.getPublicChatbot({ uniqueId: bot.uniqueId, siteHost: 'shop.example.com' });
    expect(res).toMatchObject({
      allowedDomains: ['shop.example.com'],
      proofOfWork: true,
      standalonePage: true,
      appearance: { position: 'right' },
    });
    const refused = await rpcError(stack.client.getPublicChatbot({ uniqueId: bot.uniqueId, siteHost: 'evil.example' }));
    expect(refused).toMatchObject({ code: Code.PermissionDenied, rawMessage: 'This chatbot is not available on this website.' });
    expect((await rpcError(stack.client.createChallenge({ uniqueId: bot.uniqueId, siteHost: 'evil.example' }))).code).toBe(
      Code.PermissionDenied,
    );
    const challenge = await stack.client.createChallenge({ uniqueId: bot.uniqueId });
    expect(challenge).toMatchObject({ algorithm: 'SHA-256', maxNumber: 50_000n });
    expect(challenge.salt).toMatch(/expires=\d+/);
    const noProof = await rpcError(stack.client.sendMessage(visitor(bot.uniqueId, QUESTION)));
    expect(noProof).toMatchObject({ code: Code.PermissionDenied, rawMessage: 'Please reload the page and try again.' });
    expect((await rpcError(stack.client.createChallenge({ uniqueId: 'no-such-bot' }))).code).toBe(Code.NotFound);
  });
});
