// The OpenAI-compatible pair of the developer API with the official `openai` SDK as the client,
// unmodified, pointed at Parley: a chatbot is the model, the last user message the visitor's,
// earlier turns the history; answers whole and streamed, citations in parley_sources; the SDK's own
// errors for an unknown model (404) and a key without the chat scope (403); the usage, whole and
// streamed with stream_options.include_usage, is the answer's as billing records it.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fakePromptTokens,
  fakeTokenCount,
  startFakeOpenAI,
  type FakeOpenAI,
  type FakeOpenAIRequest,
} from '@parley/common/testing/fake-openai.ts';
import { apiKeys, chatbotWithKnowledge } from './api-v1-fixtures.ts';
import { registerOwner, type Owner } from './chatbot-fixtures.ts';
import { startStack, type Stack } from './stack.ts';
import { sql } from './workspace-fixtures.ts';

let stack: Stack;
let fake: FakeOpenAI;
let owner: Owner;
let bot: string;
let client: OpenAI;
let noChat: OpenAI;
let baseURL: string;

// Cites the first passage, so the answer has a source; names how many turns came before the message.
const reply = (body: FakeOpenAIRequest) => {
  const turns = body.messages.filter((m) => m.role !== 'system');
  return `We open at nine [1]. (${turns.length - 1} earlier turns; asked: ${turns[turns.length - 1]?.content ?? ''})`;
};

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply });
  stack = await startStack({ chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url }, billingEnv: { INITIAL_CREDIT: '5' } });
  owner = await registerOwner(stack, 'sdk-owner');
  bot = await chatbotWithKnowledge(stack, owner, 'SDK shop');
  const keys = apiKeys(stack);
  baseURL = `${stack.url}/api/v1/openai`;
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

describe('usage, as the SDK reads it', () => {
  /** The usage the model reported for its last answer (the fake counts a token per four characters). */
  const modelUsage = () => {
    const request = fake.requests.at(-1)!;
    const prompt_tokens = fakePromptTokens(request.messages);
    const completion_tokens = fakeTokenCount(reply(request));
    return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
  };
  /** A client of a key of its own, so billing's record of its one answer can be found by the key. */
  async function keyedClient() {
    const key = await apiKeys(stack).create(owner, ['chat']);
    return { id: key.id, client: new OpenAI({ apiKey: key.secret, baseURL, maxRetries: 0 }) };
  }
  /** What billing recorded for the key's answers. */
  const billed = (apiKeyId: string) =>
    expect.poll(
      async () =>
        (
          await sql(
            stack.billingDatabase,
            `SELECT "promptTokens", "completionTokens", "totalTokens" FROM $schema."UsageRecord" WHERE "apiKeyId" = $1`,
            [apiKeyId],
          )
        ).map((r) => ({ prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens, total_tokens: r.totalTokens })),
      { timeout: 10_000 },
    );

  it('answers a chat completion with the usage billing records for it', async () => {
    const keyed = await keyedClient();
    const completion = await keyed.client.chat.completions.create({ model: bot, messages: [{ role: 'user', content: 'How much?' }] });
    const usage = modelUsage();
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage).toEqual(usage);
    await billed(keyed.id).toEqual([usage]);
  });

  it('ends a stream with include_usage with a chunk of no choices carrying the usage, every chunk before it usage: null', async () => {
    const keyed = await keyedClient();
    const stream = await keyed.client.chat.completions.create({
      model: bot,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Streamed with usage?' }],
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const usage = modelUsage();
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(usage);
    expect(chunks.slice(0, -1).every((c) => c.usage === null && c.choices.length === 1)).toBe(true);
    // The answer's end (and its sources) comes just before.
    const end = chunks.at(-2)!;
    expect(end.choices[0].finish_reason).toBe('stop');
    expect((end as unknown as WithSources).parley_sources).toHaveLength(1);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toContain('asked: Streamed with usage?');
    await billed(keyed.id).toEqual([usage]);
  });

  it('streams without a usage chunk, nor usage fields, when not asked', async () => {
    const stream = await client.chat.completions.create({ model: bot, stream: true, messages: [{ role: 'user', content: 'No usage?' }] });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.choices.length === 1 && !('usage' in c))).toBe(true);
  });
});
