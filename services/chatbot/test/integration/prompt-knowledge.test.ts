// GetPromptKnowledge: the public chatbot and its prompt knowledge in one call, with the whole
// knowledge text cached in process by the version of the chatbot row it was read for.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

let svc: TestChatbotService;
beforeAll(async () => {
  svc = await startChatbotService();
});
afterAll(async () => {
  await svc?.stop();
});

const NOT_FOUND = 'Chatbot not found or inactive';
const ask = (uniqueId: string, query = 'opening hours', budgetChars = 12_000, k = 3) =>
  svc.client.getPromptKnowledge({ uniqueId, query, budgetChars, k });

async function chatbotWith(entries: string[]) {
  const owner = newOwner();
  const bot = await svc.createChatbot(owner, 'Shop');
  for (const text of entries) await svc.client.addTextEntry({ ownerId: owner, chatbotId: bot.id, text });
  return { owner, bot };
}

describe('GetPromptKnowledge', () => {
  it('answers the public chatbot as GetPublicChatbot does, with the whole knowledge base when it fits the budget', async () => {
    const { bot } = await chatbotWith(['We open at nine.', 'We close at five.']);
    const res = await ask(bot.uniqueId);
    expect(res.chatbot).toEqual((await svc.client.getPublicChatbot({ uniqueId: bot.uniqueId })).chatbot);
    expect(res.passages).toEqual(['We open at nine.\n\nWe close at five.']);
    expect(res.wholeKnowledge).toBe(true);
  });

  it('answers the chunks Retrieve ranks best when the knowledge base is over the budget (or the budget is 0)', async () => {
    const { bot } = await chatbotWith([
      'Our opening hours are nine to five.',
      'Parking is free behind the shop.',
      'Gift cards are sold at the counter.',
    ]);
    const retrieved = await svc.client.retrieve({ chatbotId: bot.id, query: 'opening hours', k: 2 });
    for (const budgetChars of [10, 0]) {
      const res = await ask(bot.uniqueId, 'opening hours', budgetChars, 2);
      expect(res.wholeKnowledge).toBe(false);
      expect(res.passages).toEqual(retrieved.chunks.map((c) => c.content));
      expect(res.passages[0]).toContain('opening hours');
    }
  });

  it('chooses how many chunks when asked for 0: as many as fill the budget (one per 400 characters), 5 without a budget', async () => {
    const { bot } = await chatbotWith(Array.from({ length: 7 }, (_, i) => `Opening hours, note ${i}: we open at ${i + 8}.`));
    const best = async (k: number) =>
      (await svc.client.retrieve({ chatbotId: bot.id, query: 'opening hours', k })).chunks.map((c) => c.content);
    const overBudget = await ask(bot.uniqueId, 'opening hours', 100, 0);
    expect(overBudget.wholeKnowledge).toBe(false);
    expect(overBudget.passages).toEqual(await best(1));
    expect((await ask(bot.uniqueId, 'opening hours', 1, 0)).passages).toEqual(await best(1));
    const noBudget = await ask(bot.uniqueId, 'opening hours', 0, 0);
    expect(noBudget.passages).toHaveLength(5);
    expect(noBudget.passages).toEqual(await best(5));
  });

  it('answers no passages for an empty knowledge base', async () => {
    const { bot } = await chatbotWith([]);
    expect((await ask(bot.uniqueId)).passages).toEqual([]);
    expect((await ask(bot.uniqueId, 'hello', 0)).passages).toEqual([]);
  });

  it('is NotFound for an unknown or inactive chatbot, at once after deactivation', async () => {
    await expectRpcError(ask('no-such-bot'), Code.NotFound, NOT_FOUND);
    const { owner, bot } = await chatbotWith(['Something.']);
    await ask(bot.uniqueId);
    await svc.client.updateChatbot({ ownerId: owner, chatbotId: bot.id, isActive: false });
    await expectRpcError(ask(bot.uniqueId), Code.NotFound, NOT_FOUND);
    await svc.client.updateChatbot({ ownerId: owner, chatbotId: bot.id, isActive: true });
    expect((await ask(bot.uniqueId)).passages).toEqual(['Something.']);
  });

  it("never answers a cached text after the knowledge base changed (the cache is keyed by the row's updatedAt)", async () => {
    const { owner, bot } = await chatbotWith(['First.']);
    expect((await ask(bot.uniqueId)).passages).toEqual(['First.']);
    const cache = svc.parts.deps.knowledgeCache;
    const row = await svc.db.chatbot.findUniqueOrThrow({ where: { id: bot.id } });
    // Served from the cache while the row is unchanged: the database no longer decides the text.
    cache.set(row, [{ text: 'From the cache.', entryId: 'cached', title: 'Cached', url: '' }]);
    expect((await ask(bot.uniqueId)).passages).toEqual(['From the cache.']);

    const { knowledgeBase } = await svc.client.addTextEntry({ ownerId: owner, chatbotId: bot.id, text: 'Second.' });
    expect((await ask(bot.uniqueId)).passages).toEqual(['First.\n\nSecond.']);
    await svc.client.deleteTextEntry({ ownerId: owner, chatbotId: bot.id, entryId: knowledgeBase!.textEntries[0].id });
    expect((await ask(bot.uniqueId)).passages).toEqual(['Second.']);
    // Renaming (Prisma's @updatedAt) also moves the version: read again, the same text.
    await svc.client.updateChatbot({ ownerId: owner, chatbotId: bot.id, name: 'Renamed' });
    const renamed = await ask(bot.uniqueId);
    expect(renamed.chatbot!.name).toBe('Renamed');
    expect(renamed.passages).toEqual(['Second.']);
  });
});
