// The visitor limits' refusals through the chat service's RPCs, with the real chatbot service (its
// limits, embedding and defaults) and the real billing service: the chatbot's daily spend limit is
// billing's, counted from its own debits and open holds; a visitor past the owner's limit gets the
// 429 and nothing is held; the site rule and the proof-of-work challenge on the public lookup.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAILY_LIMIT_REACHED } from '../../src/public-chat/daily-limits.ts';
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

describe("the chatbot's daily spend limit", () => {
  it("refuses with the day's 429 once billing's debits and open holds of today leave no room for another answer", async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.setCredit(bot.ownerId, '10');
    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, limits: { dailySpendLimit: '0.01' } });
    // Long answers, so that about twenty of them spend the cent.
    stack.fake.setBehaviour({ reply: 'The museum opens at ten and closes at six. '.repeat(70) });
    let answered = 0;
    let refusal: unknown;
    for (let i = 0; i < 100 && !refusal; i++) {
      await stack.client.sendMessage(visitor(bot.uniqueId, `${QUESTION} (${i})`, { clientIp: `198.51.100.${i + 1}` })).then(
        () => answered++,
        (err: unknown) => (refusal = err),
      );
      if (i % 3 === 2) await stack.applyUsage(); // some answers settled, some still held
    }
    stack.fake.reset();
    expect(answered).toBeGreaterThan(0);
    expect(refusal).toMatchObject({ code: Code.ResourceExhausted, rawMessage: DAILY_LIMIT_REACHED });
    await stack.applyUsage();
    const records = await stack.billing.prisma.usageRecord.findMany({ where: { ownerId: bot.ownerId } });
    expect(records).toHaveLength(answered);
    const spent = records.reduce((sum, r) => sum + Number(r.totalCost), 0);
    expect(spent).toBeLessThanOrEqual(0.01);
    expect(await stack.billing.prisma.creditReservation.count({ where: { ownerId: bot.ownerId } })).toBe(0);
    // A higher limit lets the chatbot answer again the same day.
    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, limits: { dailySpendLimit: '5.00' } });
    await expect(stack.client.sendMessage(visitor(bot.uniqueId, QUESTION))).resolves.toBeTruthy();
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
    expect(await stack.billing.prisma.creditReservation.count({ where: { ownerId: bot.ownerId } })).toBe(2);
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
