import { Code } from '@connectrpc/connect';
import { fakePromptTokens, fakeTokenCount } from '@parley/common/testing/fake-openai.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lastSystemPrompt, rpcError, session, startChatStack, visitor, type ChatStack, type ChatUnderTest } from './harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack();
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.fake.reset());

describe('GetPublicChatbot', () => {
  it('answers only the name, the picture, the welcome message and the suggested questions of an active chatbot', async () => {
    const bot = await stack.newChatbot({ name: 'Sales Helper', knowledge: ['Our shop opens at nine.'] });
    const res = await stack.client.getPublicChatbot({ uniqueId: bot.uniqueId });
    expect(res).toMatchObject({ name: 'Sales Helper', profilePicture: '', welcomeMessage: '', suggestedQuestions: [] });
    // Nothing else travels: the response message has exactly these fields (how it looks, where it runs, its lead form and handoff among them).
    expect(
      Object.keys(res)
        .filter((k) => !k.startsWith('$'))
        .sort(),
    ).toEqual([
      'allowedDomains',
      'appearance',
      'handoff',
      'leadForm',
      'name',
      'profilePicture',
      'proofOfWork',
      'standalonePage',
      'suggestedQuestions',
      'welcomeMessage',
    ]);

    await stack.chatbots.updateChatbot({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      voice: {
        welcomeMessage: 'Hi! Ask me anything.',
        suggestedQuestions: { questions: ['When do you open?', 'Do you deliver?'] },
        instructions: 'Secret.',
      },
    });
    const voiced = await stack.client.getPublicChatbot({ uniqueId: bot.uniqueId });
    expect(voiced).toMatchObject({ welcomeMessage: 'Hi! Ask me anything.', suggestedQuestions: ['When do you open?', 'Do you deliver?'] });
    expect(JSON.stringify(voiced)).not.toContain('Secret.');
  });

  it('answers NOT_FOUND "Chatbot not found or inactive" for an unknown or inactive chatbot', async () => {
    const bot = await stack.newChatbot();
    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, isActive: false });
    for (const uniqueId of [bot.uniqueId, 'no-such-bot', '', '../etc/passwd']) {
      const err = await rpcError(stack.client.getPublicChatbot({ uniqueId }));
      expect(err.code).toBe(Code.NotFound);
      expect(err.rawMessage).toBe('Chatbot not found or inactive');
    }
    for (const uniqueId of [bot.uniqueId, 'x'.repeat(1000)]) {
      const err = await rpcError(stack.client.sendMessage(visitor(uniqueId, 'hello')));
      expect(err.code).toBe(Code.NotFound);
      expect(err.rawMessage).toBe('Chatbot not found or inactive');
    }
    // A malformed id is refused before it could name a rate-limit counter.
    expect(await stack.redis.keys(`${stack.prefix}:chat-rate:*${'x'.repeat(100)}*`)).toEqual([]);
  });
});

describe('SendMessage', () => {
  it('answers from the knowledge base with the name and language in the prompt, and stores the exchange', async () => {
    const bot = await stack.newChatbot({ name: 'Opening Hours Bot', knowledge: ['The bakery opens at 7am and closes at 6pm.'] });
    stack.fake.setBehaviour({ reply: 'We open at 7am.' });

    const res = await stack.client.sendMessage(
      visitor(bot.uniqueId, '  When do you open?  ', {
        sessionId: session('visitor-session_1'),
        clientIp: '198.51.100.4',
        userAgent: 'TestBrowser/1.0',
      }),
    );
    expect(res).toMatchObject({ message: 'We open at 7am.', sessionId: session('visitor-session_1') });

    const request = stack.fake.requests.at(-1)!;
    expect(request.model).toBe('gpt-4o-mini');
    expect(request.max_tokens).toBe(800);
    const system = lastSystemPrompt(stack.fake);
    expect(system).toContain('"Opening Hours Bot"');
    expect(system).toContain('The bakery opens at 7am and closes at 6pm.');
    expect(system).toContain('Always reply in English.');
    expect(system).toMatch(/say plainly that you do not know/);
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'When do you open?' });

    const conversation = await stack.parts.prisma.conversation.findUniqueOrThrow({
      where: { chatbotId_sessionId: { chatbotId: bot.id, sessionId: session('visitor-session_1') } },
      include: { messages: { orderBy: { id: 'asc' } } },
    });
    expect(conversation).toMatchObject({ ownerId: bot.ownerId, userIp: '198.51.100.4', userAgent: 'TestBrowser/1.0', messageCount: 2 });
    expect(conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'When do you open?'],
      ['assistant', 'We open at 7am.'],
    ]);
    expect(conversation.messages[1].createdAt.getTime()).toBeGreaterThanOrEqual(conversation.messages[0].createdAt.getTime());
  });

  it("publishes UsageRecorded with the provider's exact token counts and ChatbotInteraction with the same server-made request id", async () => {
    const bot = await stack.newChatbot({ name: 'Metered', knowledge: ['Tickets cost ten euros.'] });
    const reply = 'Tickets cost ten euros each.';
    stack.fake.setBehaviour({ reply });
    await stack.client.sendMessage(visitor(bot.uniqueId, 'How much is a ticket?'));

    const request = stack.fake.requests.at(-1)!;
    const usage = (await stack.usageJobs()).filter((u) => u.chatbotId === bot.id);
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      chatbotName: 'Metered',
      model: 'gpt-4o-mini',
      promptTokens: BigInt(fakePromptTokens(request.messages)),
      completionTokens: BigInt(fakeTokenCount(reply)),
    });
    expect(usage[0].requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Math.abs(Number(usage[0].occurredAt!.seconds) * 1000 - Date.now())).toBeLessThan(60_000);

    const interactions = (await stack.interactionJobs()).filter((i) => i.chatbotId === bot.id);
    expect(interactions.map((i) => i.requestId)).toEqual([usage[0].requestId]);
  });

  it('keeps one conversation per session, gives the model its recent turns, and keeps the first IP and user agent', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Parking is free on Sundays.'] });
    stack.fake.setBehaviour({ reply: (body) => `Answer ${body.messages.length}` });
    const first = await stack.client.sendMessage(
      visitor(bot.uniqueId, 'Is parking free?', { sessionId: session('sess-A'), clientIp: '192.0.2.1', userAgent: 'First' }),
    );
    await stack.client.sendMessage(
      visitor(bot.uniqueId, 'And on Mondays?', { sessionId: session('sess-A'), clientIp: '192.0.2.99', userAgent: 'Second' }),
    );
    await stack.client.sendMessage(visitor(bot.uniqueId, 'Other visitor', { sessionId: session('sess-B') }));

    const second = stack.fake.requests[1];
    expect(second.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(second.messages[1].content).toBe('Is parking free?');
    expect(second.messages[2].content).toBe(first.message);
    // Another session's turns never reach the prompt.
    expect(stack.fake.requests[2].messages.map((m) => m.role)).toEqual(['system', 'user']);

    const conversations = await stack.parts.prisma.conversation.findMany({ where: { chatbotId: bot.id }, orderBy: { createdAt: 'asc' } });
    expect(conversations.map((c) => [c.sessionId, c.messageCount, c.userIp, c.userAgent])).toEqual([
      [session('sess-A'), 4, '192.0.2.1', 'First'],
      [session('sess-B'), 2, '203.0.113.7', 'Mozilla/5.0 (test)'],
    ]);
  });

  it('keeps only session ids it issued: any other starts a new conversation with a new id', async () => {
    const bot = await stack.newChatbot({ knowledge: ['x'] });
    const ids = new Set<string>();
    const unsigned = 'A'.repeat(38); // the signed ids' shape, without a valid signature
    for (const sessionId of ['', '   ', 'has space', 'x'.repeat(65), 'drop;table', 'ünïcode', 'a'.repeat(64), 'lk2j3h4g5f6d7', unsigned]) {
      const res = await stack.client.sendMessage(visitor(bot.uniqueId, 'hi', { sessionId }));
      expect(res.sessionId).toMatch(/^[A-Za-z0-9_-]{38}$/);
      expect(res.sessionId).not.toBe(sessionId);
      ids.add(res.sessionId);
    }
    expect(ids.size).toBe(9);
    const issued = [...ids][0];
    expect((await stack.client.sendMessage(visitor(bot.uniqueId, 'hi again', { sessionId: issued }))).sessionId).toBe(issued);
    expect(await stack.parts.prisma.conversation.findFirstOrThrow({ where: { chatbotId: bot.id, sessionId: issued } })).toMatchObject({
      messageCount: 4,
    });
  });

  it("never gives a visitor another visitor's turns for reusing the id that visitor sent", async () => {
    const bot = await stack.newChatbot({ knowledge: ['Parking is free on Sundays.'] });
    stack.fake.setBehaviour({ reply: (body) => `Answer ${body.messages.length}` });
    stack.fake.reset();
    // Visitor A's page sent its own id; the server answered with a new one, which A keeps using.
    const a1 = await stack.client.sendMessage(
      visitor(bot.uniqueId, 'My order number is 4711', { sessionId: 'page-made-id1', clientIp: '192.0.2.1' }),
    );
    await stack.client.sendMessage(visitor(bot.uniqueId, 'And my address?', { sessionId: a1.sessionId, clientIp: '192.0.2.1' }));
    // Visitor B sends the id A's page made up: a conversation of B's own, with none of A's turns.
    const b = await stack.client.sendMessage(
      visitor(bot.uniqueId, 'What did I tell you?', { sessionId: 'page-made-id1', clientIp: '192.0.2.2' }),
    );
    expect(b.sessionId).not.toBe(a1.sessionId);
    expect(stack.fake.requests.at(-1)!.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(JSON.stringify(stack.fake.requests.at(-1)!.messages)).not.toContain('4711');
    expect(await stack.parts.prisma.conversation.count({ where: { chatbotId: bot.id, sessionId: 'page-made-id1' } })).toBe(0);
  });

  it('refuses empty, oversized and unknown-model messages clearly, without calling the model', async () => {
    const bot = await stack.newChatbot({ knowledge: ['x'] });
    const cases: [ReturnType<typeof visitor>, string][] = [
      [visitor(bot.uniqueId, ''), 'Message is required'],
      [visitor(bot.uniqueId, ' \n\t '), 'Message is required'],
      [visitor(bot.uniqueId, 'a'.repeat(4001)), 'Message is too long (maximum 4,000 characters)'],
      [visitor(bot.uniqueId, 'hello', { model: 'gpt-5-ultra' }), 'Unknown model: gpt-5-ultra'],
    ];
    for (const [input, message] of cases) {
      const err = await rpcError(stack.client.sendMessage(input));
      expect(err.code).toBe(Code.InvalidArgument);
      expect(err.rawMessage).toBe(message);
    }
    // Exactly the limit is accepted, counted in characters (an emoji is one).
    await stack.client.sendMessage(visitor(bot.uniqueId, '😀'.repeat(4000)));
    expect(stack.fake.requests).toHaveLength(1);
  });

  it("tells the model to reply in the chatbot's language", async () => {
    const french = await stack.newChatbot({ knowledge: ['La boutique ouvre à neuf heures.'], language: 'french' });
    await stack.client.sendMessage(visitor(french.uniqueId, 'Quand ouvrez-vous ?'));
    expect(lastSystemPrompt(stack.fake)).toContain('Always reply in French.');
    const chinese = await stack.newChatbot({ knowledge: ['商店九点开门。'], language: 'chinese' });
    await stack.client.sendMessage(visitor(chinese.uniqueId, '几点开门？'));
    expect(lastSystemPrompt(stack.fake)).toContain('Always reply in Chinese (Simplified).');
  });
});

describe('knowledge in the prompt', () => {
  let small: ChatUnderTest;
  beforeAll(async () => {
    small = await stack.startChat({ PROMPT_KNOWLEDGE_CHARS: '300' });
  });

  it('includes the whole knowledge base when it fits the budget', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Alpha fact one.', 'Beta fact two.'] });
    await small.client.sendMessage(visitor(bot.uniqueId, 'Tell me everything'));
    const system = lastSystemPrompt(stack.fake);
    expect(system).toContain('Alpha fact one.');
    expect(system).toContain('Beta fact two.');
  });

  it('includes the best retrieved chunks, within the budget, when the knowledge base is larger', async () => {
    const filler = (topic: string) =>
      Array.from({ length: 12 }, (_, i) => `Paragraph ${i} about ${topic} and nothing of interest.`).join(' ');
    const bot = await stack.newChatbot({
      knowledge: [filler('gardening'), 'The submarine museum is open on Tuesdays only.', filler('astronomy')],
    });
    await small.client.sendMessage(visitor(bot.uniqueId, 'When is the submarine museum open?'));
    const system = lastSystemPrompt(stack.fake);
    expect(system).toContain('The submarine museum is open on Tuesdays only.');
    const knowledge = system.slice(system.indexOf('<knowledge_base>'));
    expect(knowledge.length).toBeLessThan(300 + 100);
    expect(system).not.toContain('Paragraph 11 about astronomy');
  });
});

describe('StreamMessage', () => {
  it('streams the answer as deltas, then one done event with the whole message and the session id', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Delivery takes two days.'] });
    const reply = 'Delivery takes two days, sometimes three when it snows heavily.';
    stack.fake.setBehaviour({ reply, chunkDelayMs: 5 });

    const events = [];
    for await (const res of stack.client.streamMessage(visitor(bot.uniqueId, 'How long is delivery?', { sessionId: session('stream-1') })))
      events.push(res.event);

    const deltas = events.filter((e) => e.case === 'delta').map((e) => e.value as string);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe(reply);
    expect(events.at(-1)).toMatchObject({ case: 'done', value: { message: reply, sessionId: session('stream-1') } });
    expect(events.filter((e) => e.case === 'done')).toHaveLength(1);

    const request = stack.fake.requests.at(-1)!;
    expect(request.stream).toBe(true);
    expect(request.stream_options).toEqual({ include_usage: true });
    const usage = (await stack.usageJobs()).filter((u) => u.chatbotId === bot.id);
    expect(usage).toHaveLength(1);
    expect(usage[0].promptTokens).toBe(BigInt(fakePromptTokens(request.messages)));
    expect(usage[0].completionTokens).toBe(BigInt(fakeTokenCount(reply)));
    const stored = await stack.parts.prisma.message.findMany({ where: { conversation: { chatbotId: bot.id } }, orderBy: { id: 'asc' } });
    expect(stored.map((m) => m.content)).toEqual(['How long is delivery?', reply]);
  });

  it('finishes, stores and bills an answer whose visitor stopped reading half-way (the provider charged for it)', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    const reply = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen';
    stack.fake.setBehaviour({ reply, chunkDelayMs: 60 });
    for await (const res of stack.client.streamMessage(visitor(bot.uniqueId, 'Count for me', { sessionId: session('gone-away') }))) {
      if (res.event.case === 'delta') break;
    }
    const deadline = Date.now() + 10_000;
    while ((await stack.usageJobs()).every((u) => u.chatbotId !== bot.id)) {
      if (Date.now() > deadline) throw new Error('no UsageRecorded job');
      await new Promise((r) => setTimeout(r, 50));
    }
    const stored = await stack.parts.prisma.message.findMany({
      where: { conversation: { chatbotId: bot.id, sessionId: session('gone-away') } },
      orderBy: { id: 'asc' },
    });
    expect(stored.map((m) => m.content)).toEqual(['Count for me', reply]);
  });

  it('refuses bad input before streaming anything', async () => {
    const bot = await stack.newChatbot({ knowledge: ['x'] });
    const err = await rpcError(
      (async () => {
        for await (const _ of stack.client.streamMessage(visitor(bot.uniqueId, '   '))) void _;
      })(),
    );
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe('Message is required');
  });
});
