// The public chat's work per message: one chatbot-service call (GetPromptKnowledge, the only path:
// the two-call path of GetPublicChatbot, then GetChatbot or Retrieve, is retired); each
// exchange stored by one statement, atomically, however many messages of one session arrive at once;
// and the owner's credit held with billing for every message, never from a cached balance.
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { deleteChatbotConversations } from '../../src/conversations/delete-conversations.ts';
import { recordExchange, loadRecentTurns } from '../../src/public-chat/conversation-store.ts';
import { recorder } from '../../src/public-chat/recorder.ts';
import { sendMessage } from '../../src/public-chat/send-message.ts';
import { CHATBOT_UNAVAILABLE } from '../../src/core/visitor-errors.ts';
import { createChatService, type ChatServiceParts } from '../../src/service.ts';
import { logger, rpcError, session, startChatStack, visitor, type ChatStack } from './harness.ts';

let stack: ChatStack;
const services: ChatServiceParts[] = [];
beforeAll(async () => {
  stack = await startChatStack();
});
beforeEach(() => stack.fake.reset());
afterAll(async () => {
  for (const parts of services) for (const close of parts.closers) await close();
  await stack?.stop();
});

/** A chat service (not served) whose calls to the chatbot service are counted, and may be refused by name. */
async function countingChat(refuse: string[] = []) {
  const calls: string[] = [];
  const chatbots = new Proxy(stack.chatbots, {
    get(target, name: string) {
      const method = (target as unknown as Record<string, (...args: unknown[]) => unknown>)[name];
      return (...args: unknown[]) => {
        calls.push(name);
        if (refuse.includes(name)) return Promise.reject(new ConnectError(`${name} is not implemented`, Code.Unimplemented));
        return method.apply(target, args);
      };
    },
  }) as Client<typeof ChatbotService>;
  const parts = await createChatService(stack.config, { logger, workers: false, chatbots });
  services.push(parts);
  return { parts, calls };
}

describe('one call to the chatbot service per message', () => {
  it('asks GetPromptKnowledge only, and gives the model the whole knowledge base', async () => {
    const bot = await stack.newChatbot({ knowledge: ['We open at nine.', 'We close at five.'] });
    const one = await countingChat();
    stack.fake.requests.length = 0;
    await sendMessage(one.parts.deps, visitor(bot.uniqueId, 'When do you open?', { sessionId: session('one') }));
    expect(one.calls).toEqual(['getPromptKnowledge']);
    expect(stack.fake.requests).toHaveLength(1);
    // Each entry a numbered passage, oldest first.
    expect(stack.fake.requests[0].messages[0].content).toMatch(/\[1\][^\n]*\nWe open at nine\.\n\n---\n\n\[2\][^\n]*\nWe close at five\./);
  });

  it('answers "temporarily unavailable" when the chatbot service does not offer GetPromptKnowledge, asking nothing else', async () => {
    const bot = await stack.newChatbot({ knowledge: ['We open at nine.'] });
    const old = await countingChat(['getPromptKnowledge']);
    stack.fake.requests.length = 0;
    const err = await rpcError(sendMessage(old.parts.deps, visitor(bot.uniqueId, 'When do you open?', { sessionId: session('two') })));
    expect(err).toMatchObject({ code: Code.Unavailable, rawMessage: CHATBOT_UNAVAILABLE });
    expect(old.calls).toEqual(['getPromptKnowledge']);
    expect(stack.fake.requests).toHaveLength(0);
  });

  it('uses the history read early for a known chatbot, and holds the credit of its owner, only when the chatbot service confirms it', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    const other = await stack.newChatbot({ knowledge: ['Other knowledge.'] });
    await stack.setCredit(other.ownerId, '0');
    const { parts } = await countingChat();
    stack.fake.setBehaviour({ reply: (body) => `Re: ${body.messages.at(-1)!.content}` });
    await sendMessage(parts.deps, visitor(bot.uniqueId, 'first', { sessionId: session('known') }));
    await sendMessage(parts.deps, visitor(other.uniqueId, 'elsewhere', { sessionId: session('known') })).catch(() => {});
    // A wrong name for the chatbot (as if it had changed): the early read is dropped and done again,
    // and the hold is taken on the confirmed owner's credit (the wrong one has none).
    parts.deps.chatbotContext.caches.known.set(bot.uniqueId, null, { id: other.id, ownerId: other.ownerId });
    stack.fake.requests.length = 0;
    await expect(sendMessage(parts.deps, visitor(bot.uniqueId, 'second', { sessionId: session('known') }))).resolves.toEqual({
      message: 'Re: second',
      sessionId: session('known'),
      sources: [],
      messageId: expect.stringMatching(/^[1-9][0-9]*$/),
      handoff: null,
      offerHandoff: false,
      unanswered: true,
      showLeadForm: false,
      confirmation: null,
      usage: { promptTokens: expect.any(Number), completionTokens: expect.any(Number) },
    });
    expect(stack.fake.requests[0].messages.map((m) => m.content).slice(1)).toEqual(['first', 'Re: first', 'second']);
    // Confirmed again: the right chatbot is known.
    expect(parts.deps.chatbotContext.caches.known.get(bot.uniqueId, null)).toEqual({ id: bot.id, ownerId: bot.ownerId, handoffOn: false });
  });

  it('asks the chatbot service nothing for a chatbot unchanged since its last message, and sees every change on the next one', async () => {
    const bot = await stack.newChatbot({ name: 'Front desk', knowledge: ['We open at nine.'] });
    const { parts, calls } = await countingChat();
    const ask = (message: string) =>
      sendMessage(parts.deps, visitor(bot.uniqueId, message, { sessionId: session(`cache-${message.length}`) }));
    const systemPrompt = () => stack.fake.requests.at(-1)!.messages[0].content;

    // The first message learns which chatbot the name is, the second caches under its revision.
    await ask('one');
    await ask('two');
    expect(calls).toEqual(['getPromptKnowledge', 'getPromptKnowledge']);
    stack.fake.requests.length = 0;
    await ask('three');
    await ask('four!');
    expect(calls).toHaveLength(2);
    expect(stack.fake.requests).toHaveLength(2);
    expect(systemPrompt()).toContain('Front desk');
    expect(systemPrompt()).toContain('We open at nine.');

    // Each change through the chatbot service shows on the very next message.
    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, name: 'Reception' });
    await ask('five!');
    expect(systemPrompt()).toContain('Reception');
    await stack.chatbots.addTextEntry({ ownerId: bot.ownerId, chatbotId: bot.id, text: 'We close at five.' });
    await ask('six!!');
    expect(systemPrompt()).toContain('We close at five.');
    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, language: 'french' });
    await ask('seven');
    expect(systemPrompt()).toContain('Always reply in French.');
    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, isActive: false });
    expect((await rpcError(ask('eight!'))).code).toBe(Code.NotFound);
    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, isActive: true });
    await ask('nine!!');
    await stack.chatbots.deleteChatbot({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect((await rpcError(ask('ten!!!'))).code).toBe(Code.NotFound);
  });

  it('shows a change on the next message of every chat instance that cached the chatbot', async () => {
    const bot = await stack.newChatbot({ name: 'Front desk', knowledge: ['We open at nine.'] });
    const instances = [stack, await stack.startChat({})];
    const ask = (i: number, message: string) =>
      sendMessage(instances[i].parts.deps, visitor(bot.uniqueId, message, { sessionId: session(`replica-${i}`) }));
    for (let i = 0; i < 2; i++) for (const message of ['one', 'two']) await ask(i, message);
    // Held under the revision the chatbot service set last.
    const revision = await stack.redis.get(redisKeys(stack.prefix).chatbotRevision(bot.id));
    for (let i = 0; i < 2; i++)
      expect(instances[i].parts.deps.chatbotContext.caches.prompts.get(bot.uniqueId, revision)?.chatbot.name).toBe('Front desk');

    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, name: 'Reception' });
    for (let i = 0; i < 2; i++) {
      await ask(i, 'three');
      expect(stack.fake.requests.at(-1)!.messages[0].content).toContain('Reception');
    }
  });

  it('does not keep retrieved passages, which depend on the message', async () => {
    const bot = await stack.newChatbot({ knowledge: ['x'.repeat(500)] });
    const small = await stack.startChat({ PROMPT_KNOWLEDGE_CHARS: '100' });
    for (const message of ['one', 'two', 'three']) await sendMessage(small.parts.deps, visitor(bot.uniqueId, message));
    expect(small.parts.deps.chatbotContext.caches.prompts.size).toBe(0);
  });

  it('answers NotFound for an unknown chatbot without a second call', async () => {
    const one = await countingChat();
    const err = await rpcError(sendMessage(one.parts.deps, visitor('no-such-bot', 'Hello?')));
    expect(err.code).toBe(Code.NotFound);
    expect(one.calls).toEqual(['getPromptKnowledge']);
  });
});

describe('storing an exchange', () => {
  it('opens the conversation once and keeps every message of concurrent exchanges of one session, each pair in order', async () => {
    const db = stack.parts.prisma;
    const chatbotId = crypto.randomUUID();
    const base = Date.now();
    const exchanges = Array.from({ length: 12 }, (_, i) => ({
      chatbotId,
      ownerId: 'owner-store',
      sessionId: session('concurrent'),
      clientIp: `192.0.2.${i + 1}`,
      userAgent: `Agent ${i}`,
      message: `question ${i}`,
      receivedAt: new Date(base + 10 * i),
      answer: `answer ${i}`,
      answeredAt: new Date(base + 10 * i + 5),
      answered: true,
      // Every other answer cites a file and a web page; the rest cite nothing.
      sources:
        i % 2
          ? []
          : [
              { entryId: `file-${i}`, title: `Returns policy ${i}.pdf`, url: '' },
              { entryId: `page-${i}`, title: 'Shipping', url: `https://shop.example.com/shipping?i=${i}` },
            ],
    }));
    await Promise.all(exchanges.map((x) => recordExchange(stack.parts.exchanges, x)));

    const conversations = await db.conversation.findMany({ where: { chatbotId }, include: { messages: { orderBy: { id: 'asc' } } } });
    expect(conversations).toHaveLength(1);
    const [c] = conversations;
    expect(c.messageCount).toBe(24);
    expect(c.ownerId).toBe('owner-store');
    // The IP and user agent of the exchange that opened it (whichever won), never overwritten.
    const opener = exchanges.find((x) => x.clientIp === c.userIp)!;
    expect(c.userAgent).toBe(opener.userAgent);
    expect(c.createdAt).toEqual(opener.receivedAt);
    expect(c.messages).toHaveLength(24);
    for (let i = 0; i < 24; i += 2) {
      const [q, a] = [c.messages[i], c.messages[i + 1]];
      expect([q.role, a.role]).toEqual(['user', 'assistant']);
      const n = q.content.split(' ')[1];
      expect(a.content).toBe(`answer ${n}`);
      expect(q.createdAt).toEqual(exchanges[Number(n)].receivedAt);
      expect(a.createdAt).toEqual(exchanges[Number(n)].answeredAt);
      // The answer keeps what it cited, in order (a file has no address); the question keeps nothing.
      expect(q.sources).toBeNull();
      expect(a.sources).toEqual(
        Number(n) % 2
          ? null
          : [
              { entryId: `file-${n}`, title: `Returns policy ${n}.pdf` },
              { entryId: `page-${n}`, title: 'Shipping', url: `https://shop.example.com/shipping?i=${n}` },
            ],
      );
    }
    expect(c.updatedAt.getTime()).toBeGreaterThanOrEqual(base + 5);

    // The history reads them back in order, newest last.
    const turns = await loadRecentTurns(db, { chatbotId, sessionId: session('concurrent') }, 100_000);
    expect(turns).toHaveLength(24);
    expect(turns.map((t) => t.role)).toEqual(Array.from({ length: 24 }, (_, i) => (i % 2 ? 'assistant' : 'user')));
  });

  it('stores every exchange of a connection through one statement it parsed once', async () => {
    // One connection, so what it prepared can be read back on it.
    const one = new pg.Pool({ ...stack.parts.exchanges.options, max: 1 });
    try {
      const chatbotId = crypto.randomUUID();
      const at = new Date();
      for (const n of [1, 2, 3]) {
        await recordExchange(one, {
          chatbotId,
          ownerId: 'o',
          sessionId: session('named'),
          clientIp: null,
          userAgent: null,
          message: `question ${n}`,
          receivedAt: at,
          answer: `answer ${n}`,
          answeredAt: at,
          answered: false,
          sources: [],
        });
      }
      const { rows } = await one.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
      expect(rows.map((r) => r.name)).toEqual(['record-exchange']);
      const turns = await loadRecentTurns(stack.parts.prisma, { chatbotId, sessionId: session('named') }, 100_000);
      expect(turns.map((t) => t.content)).toEqual(['question 1', 'answer 1', 'question 2', 'answer 2', 'question 3', 'answer 3']);
    } finally {
      await one.end();
    }
  });

  it('records a null IP and user agent, and keeps sessions of other chatbots apart', async () => {
    const db = stack.parts.prisma;
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const at = new Date();
    for (const chatbotId of [a, b]) {
      await recordExchange(stack.parts.exchanges, {
        chatbotId,
        ownerId: 'o',
        sessionId: session('s'),
        clientIp: null,
        userAgent: null,
        message: 'm',
        receivedAt: at,
        answer: 'r',
        answeredAt: at,
        answered: false,
        sources: [],
      });
    }
    const rows = await db.conversation.findMany({ where: { chatbotId: { in: [a, b] } } });
    expect(rows.map((r) => [r.messageCount, r.userIp, r.userAgent])).toEqual([
      [2, null, null],
      [2, null, null],
    ]);
  });

  it('stores answered exchanges on sessions that do not wait for the flush, and nothing else there', async () => {
    const setting = async (db: typeof stack.parts.prisma, name: string) =>
      (await db.$queryRawUnsafe<{ value: string }[]>(`SELECT current_setting('${name}') AS value`))[0].value;
    const { exchanges } = stack.parts;
    const exchangeSetting = async (name: string) =>
      (await exchanges.query<{ value: string }>(`SELECT current_setting('${name}') AS value`)).rows[0].value;
    expect(await exchangeSetting('synchronous_commit')).toBe('off');
    expect(await exchangeSetting('search_path')).toBe(await setting(stack.parts.prisma, 'search_path'));
    expect(await setting(stack.parts.prisma, 'synchronous_commit')).toBe('on');

    // A visitor's exchange goes through that pool: with it closed, the answer is still given but nothing is stored.
    const { parts } = await countingChat();
    const bot = await stack.newChatbot({ knowledge: ['We open at nine.'] });
    const brokenPool = { query: () => Promise.reject(new Error('exchange pool used')) } as unknown as typeof exchanges;
    const broken = {
      ...parts.deps,
      recorder: recorder({
        exchanges: brokenPool,
        history: parts.deps.history,
        logger,
        publishUsage: async () => {},
        publishInteraction: async () => {},
      }),
    };
    const answer = await sendMessage(broken, visitor(bot.uniqueId, 'When do you open?', { sessionId: session('pool-check') }));
    expect(answer.message).not.toBe('');
    expect(await stack.parts.prisma.conversation.count({ where: { chatbotId: bot.id, sessionId: session('pool-check') } })).toBe(0);
  });

  it('stores nothing for a chatbot deleted while it answered, and the visitor still has the answer', async () => {
    const db = stack.parts.prisma;
    const bot = await stack.newChatbot({ knowledge: ['We open at nine.'] });
    const sessionId = session('deleted-meanwhile');
    await stack.client.sendMessage(visitor(bot.uniqueId, 'Hello?', { sessionId }));
    expect(await db.conversation.count({ where: { chatbotId: bot.id } })).toBe(1);

    // The model answers slowly; the owner deletes the chatbot while it does.
    stack.fake.setBehaviour({ delayMs: 600 });
    const asked = stack.fake.requests.length;
    const answering = stack.client.sendMessage(visitor(bot.uniqueId, 'When do you open?', { sessionId }));
    await expect.poll(() => stack.fake.requests.length).toBe(asked + 1);
    await deleteChatbotConversations({ db }, bot.id);
    const answer = await answering;
    expect(answer.message).not.toBe('');
    expect(answer.messageId).toBe('');
    expect(await db.conversation.count({ where: { chatbotId: bot.id } })).toBe(0);
    expect(await db.message.count({ where: { conversation: { chatbotId: bot.id } } })).toBe(0);
    // A first exchange of another session is not stored either.
    const exchange = { chatbotId: bot.id, ownerId: bot.ownerId, sessionId: session('deleted-new'), clientIp: null, userAgent: null };
    const at = new Date();
    expect(
      await recordExchange(stack.parts.exchanges, {
        ...exchange,
        message: 'm',
        receivedAt: at,
        answer: 'r',
        answeredAt: at,
        answered: false,
        sources: [],
      }),
    ).toBeNull();
    expect(await db.conversation.count({ where: { chatbotId: bot.id } })).toBe(0);
  });
});

describe('the credit hold', () => {
  it('is taken with billing for every message, so a balance spent to zero shows on the very next one', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    await stack.setCredit(bot.ownerId, '5');
    const { parts } = await countingChat();
    await sendMessage(parts.deps, visitor(bot.uniqueId, 'Hello?'));
    await stack.setCredit(bot.ownerId, '0');
    expect((await rpcError(sendMessage(parts.deps, visitor(bot.uniqueId, 'Hello?')))).code).toBe(Code.Unavailable);
    await stack.setCredit(bot.ownerId, '5');
    await expect(sendMessage(parts.deps, visitor(bot.uniqueId, 'Hello?'))).resolves.toMatchObject({ message: expect.any(String) });
  });

  it('is not asked for a message the rate limits refuse, even for a chatbot the instance knows', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    await stack.setCredit(bot.ownerId, '0.05');
    const accounts: string[] = [];
    const billing = new Proxy(createServiceClient(BillingService, stack.config.BILLING_URL), {
      get(target, name: string) {
        const method = (target as unknown as Record<string, (...args: unknown[]) => unknown>)[name];
        return (...args: unknown[]) => {
          accounts.push(name);
          return method.apply(target, args);
        };
      },
    }) as Client<typeof BillingService>;
    const { config } = await stack.startChat({ CHAT_RATE_PER_VISITOR: '2' });
    const parts = await createChatService(config, { logger, workers: false, billing });
    services.push(parts);
    for (const message of ['one', 'two']) await sendMessage(parts.deps, visitor(bot.uniqueId, message, { clientIp: '198.51.100.9' }));
    expect(accounts).toEqual(['reserveCredit', 'reserveCredit']);
    expect((await rpcError(sendMessage(parts.deps, visitor(bot.uniqueId, 'three', { clientIp: '198.51.100.9' })))).code).toBe(
      Code.ResourceExhausted,
    );
    expect(accounts).toHaveLength(2);
  });
});
