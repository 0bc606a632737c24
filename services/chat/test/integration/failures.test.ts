// What a visitor gets when an answer cannot be given: a clear message, nothing stored, nothing billed.
import { Code } from '@connectrpc/connect';
import { USER_MESSAGE_HEADER } from '@parley/common/rpc-errors.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rpcError, startChatStack, visitor, type ChatStack, type ChatUnderTest } from './harness.ts';

let stack: ChatStack;
let impatient: ChatUnderTest;
beforeAll(async () => {
  stack = await startChatStack();
  // A short deadline only where it is tested, so a busy machine cannot fail the other answers.
  impatient = await stack.startChat({ OPENAI_TIMEOUT_MS: '400' });
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.fake.reset());

const ANSWER_FAILED = 'The chatbot could not answer right now. Please try again.';
const UNAVAILABLE = 'This chatbot is temporarily unavailable. Please try again later.';

async function expectNothingKept(bot: { id: string }, chat: ChatUnderTest = stack) {
  expect((await stack.usageJobs()).filter((u) => u.chatbotId === bot.id)).toEqual([]);
  expect((await stack.interactionJobs()).filter((i) => i.chatbotId === bot.id)).toEqual([]);
  expect(await chat.parts.prisma.conversation.count({ where: { chatbotId: bot.id } })).toBe(0);
  expect(await chat.parts.prisma.message.count({ where: { conversation: { chatbotId: bot.id } } })).toBe(0);
}

const drain = async (stream: AsyncIterable<unknown>) => {
  const seen: unknown[] = [];
  for await (const e of stream) seen.push(e);
  return seen;
};

describe('the language model fails', () => {
  it.each([500, 429, 401, 400])(
    'answers UNAVAILABLE with a message for the visitor when the provider answers %i, and bills nothing',
    async (status) => {
      const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
      stack.fake.setBehaviour({ failWith: status });
      const err = await rpcError(stack.client.sendMessage(visitor(bot.uniqueId, 'Hello?')));
      expect(err.code).toBe(Code.Unavailable);
      expect(err.rawMessage).toBe(ANSWER_FAILED);
      expect(err.metadata.get(USER_MESSAGE_HEADER)).toBe('true');
      // No retry: one call, so a failure is never paid for twice.
      expect(stack.fake.requests).toHaveLength(1);
      await expectNothingKept(bot);
    },
  );

  it('gives up after OPENAI_TIMEOUT_MS, and bills nothing', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    stack.fake.setBehaviour({ delayMs: 2000 });
    const started = Date.now();
    const err = await rpcError(impatient.client.sendMessage(visitor(bot.uniqueId, 'Hello?')));
    expect(Date.now() - started).toBeLessThan(1800);
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toBe(ANSWER_FAILED);
    await expectNothingKept(bot, impatient);
  });

  it('ends a stream that stalls past the deadline with the same error, and bills nothing', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    stack.fake.setBehaviour({ reply: 'one two three four five six seven eight nine ten eleven twelve', chunkDelayMs: 300 });
    const err = await rpcError(drain(impatient.client.streamMessage(visitor(bot.uniqueId, 'Hello?'))));
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toBe(ANSWER_FAILED);
    await expectNothingKept(bot, impatient);
  });

  it('ends a stream with the error when the provider refuses it', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    stack.fake.setBehaviour({ failWith: 503 });
    const err = await rpcError(drain(stack.client.streamMessage(visitor(bot.uniqueId, 'Hello?'))));
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toBe(ANSWER_FAILED);
    await expectNothingKept(bot);
  });
});

describe("the owner's credit cannot cover an answer", () => {
  // 0.0001 is less than the largest cost of one answer (its prompt and 800 output tokens), which must be held first.
  it.each(['0', '-0.0000010000', '0.0001'])(
    'answers "temporarily unavailable" at a balance of %s without calling the model',
    async (balance) => {
      const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
      await stack.setCredit(bot.ownerId, balance);
      const err = await rpcError(stack.client.sendMessage(visitor(bot.uniqueId, 'Hello?')));
      expect(err.code).toBe(Code.Unavailable);
      expect(err.rawMessage).toBe(UNAVAILABLE);
      expect(err.metadata.get(USER_MESSAGE_HEADER)).toBe('true');
      const streamErr = await rpcError(drain(stack.client.streamMessage(visitor(bot.uniqueId, 'Hello?'))));
      expect(streamErr.rawMessage).toBe(UNAVAILABLE);
      expect(stack.fake.requests).toHaveLength(0);
      await expectNothingKept(bot);
    },
  );

  it('answers again once credit is back', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    await stack.setCredit(bot.ownerId, '0');
    await rpcError(stack.client.sendMessage(visitor(bot.uniqueId, 'Hello?')));
    await stack.setCredit(bot.ownerId, '0.01');
    await expect(stack.client.sendMessage(visitor(bot.uniqueId, 'Hello?'))).resolves.toMatchObject({ message: expect.any(String) });
  });
});

describe('rate limits', () => {
  let limited: ChatUnderTest;
  beforeAll(async () => {
    limited = await stack.startChat({ CHAT_RATE_PER_VISITOR: '2', CHAT_RATE_PER_BOT: '3' });
  });

  it('limits each visitor per chatbot, then the chatbot as a whole, with RESOURCE_EXHAUSTED', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    const from = (ip: string) => visitor(bot.uniqueId, 'Hello?', { clientIp: ip });
    await limited.client.sendMessage(from('10.0.0.1'));
    await limited.client.sendMessage(from('10.0.0.1'));
    const tooFast = await rpcError(limited.client.sendMessage(from('10.0.0.1')));
    expect(tooFast.code).toBe(Code.ResourceExhausted);
    expect(tooFast.rawMessage).toBe('You are sending messages too quickly. Please wait a minute and try again.');

    // Another visitor may still write, until the chatbot's own limit is reached.
    await limited.client.sendMessage(from('10.0.0.2'));
    const busy = await rpcError(limited.client.sendMessage(from('10.0.0.3')));
    expect(busy.code).toBe(Code.ResourceExhausted);
    expect(busy.rawMessage).toBe('This chatbot is receiving too many messages right now. Please try again in a minute.');
    expect(stack.fake.requests).toHaveLength(3);

    // Another chatbot is not affected.
    const other = await stack.newChatbot({ knowledge: ['Other.'] });
    await limited.client.sendMessage(visitor(other.uniqueId, 'Hello?', { clientIp: '10.0.0.1' }));
  });

  it('holds across replicas, since the counts live in Redis', async () => {
    const replica = await stack.startChat({ CHAT_RATE_PER_VISITOR: '2', CHAT_RATE_PER_BOT: '100' });
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    await limited.client.sendMessage(visitor(bot.uniqueId, 'one', { clientIp: '10.1.1.1' }));
    await replica.client.sendMessage(visitor(bot.uniqueId, 'two', { clientIp: '10.1.1.1' }));
    const err = await rpcError(
      replica.client
        .streamMessage(visitor(bot.uniqueId, 'three', { clientIp: '10.1.1.1' }))
        [Symbol.asyncIterator]()
        .next(),
    );
    expect(err.code).toBe(Code.ResourceExhausted);
  });

  it('counts concurrent messages exactly', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => limited.client.sendMessage(visitor(bot.uniqueId, `m${i}`, { clientIp: `10.2.0.${i}` }))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
  });
});
