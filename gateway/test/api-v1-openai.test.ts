// The OpenAI-compatible pair of the developer API with the official `openai` SDK as the client,
// unmodified, pointed at Parley: a chatbot is the model, the last user message the visitor's,
// earlier turns the history; answers whole and streamed, citations in parley_sources; the SDK's own
// errors for an unknown model (404) and a key without the chat scope (403).
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIRequest } from '@parley/common/testing/fake-openai.ts';
import { apiKeys, chatbotWithKnowledge } from './api-v1-fixtures.ts';
import { registerOwner } from './chatbot-fixtures.ts';
import { startStack, type Stack } from './stack.ts';

let stack: Stack;
let fake: FakeOpenAI;
let bot: string;
let client: OpenAI;
let noChat: OpenAI;

// Cites the first passage, so the answer has a source; names how many turns came before the message.
const reply = (body: FakeOpenAIRequest) => {
  const turns = body.messages.filter((m) => m.role !== 'system');
  return `We open at nine [1]. (${turns.length - 1} earlier turns; asked: ${turns[turns.length - 1]?.content ?? ''})`;
};

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply });
  stack = await startStack({ chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url }, billingEnv: { INITIAL_CREDIT: '5' } });
  const owner = await registerOwner(stack, 'sdk-owner');
  bot = await chatbotWithKnowledge(stack, owner, 'SDK shop');
  const keys = apiKeys(stack);
  const baseURL = `${stack.url}/api/v1/openai`;
  client = new OpenAI({ apiKey: (await keys.create(owner, ['chat'])).secret, baseURL, maxRetries: 0 });
  noChat = new OpenAI({ apiKey: (await keys.create(owner, ['chatbots:read'])).secret, baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

type WithSources = { parley_sources?: { entryId: string; title: string }[] };

describe('the openai SDK against Parley', () => {
  it('lists the chatbots as models', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([bot]);
  });

  it('answers a chat completion, with the citations in parley_sources', async () => {
    const completion = await client.chat.completions.create({ model: bot, messages: [{ role: 'user', content: 'When do you open?' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(bot);
    expect(completion.choices[0].message.role).toBe('assistant');
    expect(completion.choices[0].message.content).toContain('asked: When do you open?');
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect((completion as unknown as WithSources).parley_sources).toEqual([expect.objectContaining({ entryId: expect.any(String) })]);
  });

  it('takes earlier turns as the history, and ignores system messages', async () => {
    const completion = await client.chat.completions.create({
      model: bot,
      messages: [
        { role: 'system', content: 'Talk like a pirate.' },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi! How can I help?' },
        { role: 'user', content: [{ type: 'text', text: 'And when do you close?' }] },
      ],
    });
    expect(completion.choices[0].message.content).toContain('(2 earlier turns; asked: And when do you close?)');
    const prompt = fake.requests.at(-1)!.messages;
    expect(prompt.map((m) => m.content)).not.toContain('Talk like a pirate.');
    expect(prompt.slice(-3).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('streams chunks the SDK reads, ending with the sources', async () => {
    const stream = await client.chat.completions.create({ model: bot, stream: true, messages: [{ role: 'user', content: 'Streamed?' }] });
    let text = '';
    let last: unknown;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      text += chunk.choices[0]?.delta?.content ?? '';
      last = chunk;
    }
    expect(text).toContain('asked: Streamed?');
    expect((last as { choices: { finish_reason: string }[] }).choices[0].finish_reason).toBe('stop');
    expect((last as WithSources).parley_sources).toHaveLength(1);
  });

  it('answers an unknown model with the SDK’s NotFoundError', async () => {
    for (const model of ['00000000-0000-4000-8000-000000000000', 'gpt-4o']) {
      const failure = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
    }
  });

  it('refuses a key without the chat scope with the SDK’s PermissionDeniedError', async () => {
    const failure = await noChat.chat.completions
      .create({ model: bot, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((failure as InstanceType<typeof OpenAI.PermissionDeniedError>).message).toContain('chat');
    const models = await noChat.models.list().catch((e: unknown) => e);
    expect(models).toBeInstanceOf(OpenAI.PermissionDeniedError);
  });
});
