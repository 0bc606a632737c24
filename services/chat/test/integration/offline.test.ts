// With no OPENAI_API_KEY the chatbots answer honestly in offline mode: labelled, quoting the
// best-matching knowledge passages, at no cost.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { session, startChatStack, visitor, type ChatStack } from './harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack({ OPENAI_API_KEY: undefined });
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.fake.reset());

describe('offline mode', () => {
  it('quotes the passages that match the question, labelled, and bills nothing', async () => {
    const bot = await stack.newChatbot({
      knowledge: ['Our refund policy: refunds are accepted within 30 days with a receipt.', 'The office cat is called Miso.'],
    });
    // Offline answers need no credit: even an owner at zero gets them.
    await stack.setCredit(bot.ownerId, '0');
    const res = await stack.client.sendMessage(visitor(bot.uniqueId, 'What is the refund policy?', { sessionId: session('offline-1') }));

    expect(res.sessionId).toBe(session('offline-1'));
    expect(res.message).toMatch(/^\*\*Offline mode:\*\* no language model is connected/);
    expect(res.message).toContain('> Our refund policy: refunds are accepted within 30 days with a receipt.');
    expect(res.message).not.toContain('Miso');
    expect(stack.fake.requests).toHaveLength(0);

    expect((await stack.usageJobs()).filter((u) => u.chatbotId === bot.id)).toEqual([]);
    expect(await stack.billing.prisma.creditReservation.count({ where: { ownerId: bot.ownerId } })).toBe(0);
    const interactions = (await stack.interactionJobs()).filter((i) => i.chatbotId === bot.id);
    expect(interactions).toHaveLength(1);
    expect(interactions[0].requestId).toMatch(/^[0-9a-f-]{36}$/);

    const stored = await stack.parts.prisma.message.findMany({ where: { conversation: { chatbotId: bot.id } }, orderBy: { id: 'asc' } });
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ['user', 'What is the refund policy?'],
      ['assistant', res.message],
    ]);
  });

  it("says so, labelled and in the chatbot's language, when nothing matches", async () => {
    const bot = await stack.newChatbot({ knowledge: ['La boutique ouvre à neuf heures.'], language: 'french' });
    const res = await stack.client.sendMessage(visitor(bot.uniqueId, 'xylophone zeppelin'));
    expect(res.message).toBe(
      "**Mode hors ligne :** aucun modèle de langage n'est connecté, et je n'ai rien trouvé dans ma base de connaissances qui corresponde à votre question.",
    );
  });

  it('streams the offline answer, then done', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Shipping is free above fifty dollars.'] });
    const events = [];
    for await (const res of stack.client.streamMessage(visitor(bot.uniqueId, 'Is shipping free?'))) events.push(res.event);
    const deltas = events
      .filter((e) => e.case === 'delta')
      .map((e) => e.value as string)
      .join('');
    const done = events.at(-1);
    expect(done?.case).toBe('done');
    if (done?.case !== 'done') return;
    expect(deltas).toBe(done.value.message);
    expect(done.value.message).toContain('> Shipping is free above fifty dollars.');
    expect(done.value.sessionId).toMatch(/^[A-Za-z0-9_-]{38}$/);
  });
});
