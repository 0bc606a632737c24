// Each adapter, through its provider's official SDK, against the local fake that speaks that
// provider's HTTP: a whole and a streamed answer with their usage, a tool call, every error class,
// the deadline and the caller leaving mid-stream.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalogue, type CatalogueModel } from '@parley/common/models/catalogue.ts';
import { startFakeAnthropic, type FakeAnthropic } from '@parley/common/testing/fake-anthropic.ts';
import { startFakeGemini, type FakeGemini } from '@parley/common/testing/fake-gemini.ts';
import { fakePromptTokens, fakeTokenCount, startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { anthropicClient, anthropicModel } from '../anthropic-model.ts';
import { geminiClient, geminiModel } from '../gemini-model.ts';
import { LanguageModelError, type LanguageModel, type ModelAnswer, type ModelRequest } from '../language-model.ts';
import { openAIClient, openAIModel } from '../openai-model.ts';

const catalogue = loadCatalogue({});
const TIMEOUT_MS = 250;

/** What a test needs of one provider: its model through the adapter, and its fake's controls. */
interface Provider {
  name: string;
  model: CatalogueModel;
  language(baseURL?: string): LanguageModel;
  reset(): void;
  reply(text: string): void;
  fail(status: number, message?: string): void;
  delay(ms: number): void;
  chunkDelay(ms: number): void;
  toolCall(name: string, args: Record<string, unknown>): void;
  /** The status of the provider's overloaded answer. */
  overloaded: number;
  /** The provider's words for a prompt too long. */
  tooLong: string;
  /** What the provider received last: its system prompt, and the max tokens asked. */
  lastRequest(): { system: string; maxTokens: number | undefined; tools: string[] };
  /** Sets the reported cached prompt tokens and reasoning tokens (where the provider reports them) */
  cacheAndReasoning(cached: number, reasoning: number): { cached: number; reasoning: number };
  close(): Promise<void>;
}

let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
let gemini: FakeGemini;
const providers: Provider[] = [];

beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGemini()]);
  const ctx = (id: string) => {
    const model = catalogue.find(id)!;
    return { model, providerModel: model.providerModel ?? model.id, timeoutMs: TIMEOUT_MS };
  };
  providers.push(
    {
      name: 'openai',
      model: catalogue.find('gpt-4o-mini')!,
      language: (url = openai.url) => openAIModel(openAIClient({ apiKey: 'k', baseURL: url }, TIMEOUT_MS), ctx('gpt-4o-mini')),
      reset: () => openai.reset(),
      reply: (text) => openai.setBehaviour({ reply: text }),
      fail: (status, message) => openai.setBehaviour({ failWith: status, failMessage: message ?? null }),
      delay: (ms) => openai.setBehaviour({ delayMs: ms }),
      chunkDelay: (ms) => openai.setBehaviour({ chunkDelayMs: ms }),
      toolCall: (name, args) => openai.setBehaviour({ toolCalls: [{ name, arguments: args }] }),
      overloaded: 503,
      tooLong: "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens.",
      lastRequest: () => {
        const r = openai.requests.at(-1)!;
        return {
          system: r.messages.find((m) => m.role === 'system')?.content ?? '',
          maxTokens: r.max_tokens,
          tools: ((r.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name),
        };
      },
      cacheAndReasoning: (cached, reasoning) => {
        openai.setBehaviour({ cachedPromptTokens: cached, reasoningTokens: reasoning });
        return { cached, reasoning };
      },
      close: () => openai.close(),
    },
    {
      name: 'anthropic',
      model: catalogue.find('claude-haiku-4-5')!,
      language: (url = anthropic.url) =>
        anthropicModel(anthropicClient({ apiKey: 'k', baseURL: url }, TIMEOUT_MS), ctx('claude-haiku-4-5')),
      reset: () => anthropic.reset(),
      reply: (text) => anthropic.setBehaviour({ reply: text }),
      fail: (status, message) => anthropic.setBehaviour({ failWith: status, failMessage: message ?? null }),
      delay: (ms) => anthropic.setBehaviour({ delayMs: ms }),
      chunkDelay: (ms) => anthropic.setBehaviour({ chunkDelayMs: ms }),
      toolCall: (name, args) => anthropic.setBehaviour({ toolUses: [{ name, input: args }] }),
      overloaded: 529,
      tooLong: 'prompt is too long: 250000 tokens > 200000 maximum',
      lastRequest: () => {
        const r = anthropic.requests.at(-1)!;
        return { system: typeof r.system === 'string' ? r.system : '', maxTokens: r.max_tokens, tools: (r.tools ?? []).map((t) => t.name) };
      },
      // Anthropic reports the cache, not reasoning.
      cacheAndReasoning: (cached) => {
        anthropic.setBehaviour({ cacheReadTokens: cached });
        return { cached, reasoning: 0 };
      },
      close: () => anthropic.close(),
    },
    {
      name: 'gemini',
      model: catalogue.find('gemini-2.5-flash')!,
      language: (url = gemini.url) => geminiModel(geminiClient({ apiKey: 'k', baseURL: url }, TIMEOUT_MS), ctx('gemini-2.5-flash')),
      reset: () => gemini.reset(),
      reply: (text) => gemini.setBehaviour({ reply: text }),
      fail: (status, message) => gemini.setBehaviour({ failWith: status, failMessage: message ?? null }),
      delay: (ms) => gemini.setBehaviour({ delayMs: ms }),
      chunkDelay: (ms) => gemini.setBehaviour({ chunkDelayMs: ms }),
      toolCall: (name, args) => gemini.setBehaviour({ functionCalls: [{ name, args }] }),
      overloaded: 503,
      tooLong: 'The input token count (250000) exceeds the maximum number of tokens allowed (1048576).',
      lastRequest: () => {
        const r = gemini.requests.at(-1)!;
        return {
          system: (r.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join(''),
          maxTokens: r.generationConfig?.maxOutputTokens,
          tools: (r.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name)),
        };
      },
      cacheAndReasoning: (cached, reasoning) => {
        gemini.setBehaviour({ cachedTokens: cached, thoughtsTokens: reasoning });
        return { cached, reasoning };
      },
      close: () => gemini.close(),
    },
  );
});
afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
});
beforeEach(() => providers.forEach((p) => p.reset()));

const SYSTEM = 'You are the Shop assistant. Answer from the knowledge.';
const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: 'When do you open?' },
    { role: 'assistant', content: 'At nine.' },
    { role: 'user', content: 'And on Sundays?' },
  ],
  maxTokens: 120,
  ...extra,
});
/** What every fake reports for `request()`: a token per four characters of all the messages. */
const PROMPT_TOKENS = fakePromptTokens(request().messages);

async function failure(run: Promise<unknown>): Promise<LanguageModelError> {
  const err = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LanguageModelError);
  return err as LanguageModelError;
}

const each = (title: string, test: (p: Provider) => Promise<void>) =>
  it.each(['openai', 'anthropic', 'gemini'])(`%s: ${title}`, async (name) => test(providers.find((p) => p.name === name)!));

describe('the adapters, against their fakes', () => {
  each('answers whole, the system prompt as the provider wants it, with the usage it reports', async (p) => {
    p.reply('Closed on Sundays.');
    const answer = await p.language().complete(request());
    expect(answer).toEqual<ModelAnswer>({
      text: 'Closed on Sundays.',
      promptTokens: PROMPT_TOKENS,
      completionTokens: fakeTokenCount('Closed on Sundays.'),
      cachedPromptTokens: 0,
      reasoningTokens: 0,
      usageReported: true,
      toolCalls: [],
      model: p.model.id,
      provider: p.model.provider,
      fallback: false,
    });
    expect(p.lastRequest()).toEqual({ system: SYSTEM, maxTokens: 120, tools: [] });
  });

  each('streams the answer in pieces, then its usage, cached and reasoning tokens included', async (p) => {
    p.reply('We are closed on Sundays, open from nine on weekdays.');
    const reported = p.cacheAndReasoning(5, 7);
    const deltas: string[] = [];
    const answer = await p.language().stream(request(), (d) => deltas.push(d));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('We are closed on Sundays, open from nine on weekdays.');
    expect(answer).toMatchObject({
      text: deltas.join(''),
      promptTokens: PROMPT_TOKENS,
      completionTokens: fakeTokenCount(answer.text) + reported.reasoning,
      cachedPromptTokens: reported.cached,
      reasoningTokens: reported.reasoning,
      usageReported: true,
      model: p.model.id,
      provider: p.model.provider,
    });
    expect(p.lastRequest().system).toBe(SYSTEM);
  });

  const lookUpOrder = {
    name: 'look_up_order',
    description: "Finds a customer's order by its number.",
    parameters: { type: 'object', properties: { number: { type: 'string' } }, required: ['number'] },
  };
  const args = { number: 'A-1042', note: 'x'.repeat(40) };

  each('passes tool definitions and returns the tool call, its arguments parsed, whole and streamed', async (p) => {
    p.reply('Let me look.');
    p.toolCall('look_up_order', args);
    const whole = await p.language().complete(request({ tools: [lookUpOrder] }));
    expect(p.lastRequest().tools).toEqual(['look_up_order']);
    expect(whole.toolCalls).toEqual([{ id: expect.any(String), name: 'look_up_order', arguments: args }]);
    expect(whole.text).toBe('Let me look.');
    const streamed = await p.language().stream(request({ tools: [lookUpOrder] }), () => {});
    expect(streamed.toolCalls).toEqual([{ id: expect.any(String), name: 'look_up_order', arguments: args }]);
    expect(streamed.text).toBe('Let me look.');
  });

  each('refuses tool call arguments beyond the bound', async (p) => {
    p.reply('');
    p.toolCall('look_up_order', { blob: 'y'.repeat(70 * 1024) });
    const err = await failure(p.language().stream(request({ tools: [lookUpOrder] }), () => {}));
    expect(err.kind).toBe('provider');
    expect(err.message).toMatch(/exceed 65536 bytes/);
  });

  each('maps every error class to its kind, whole and streamed', async (p) => {
    const cases: [number, string | undefined, string][] = [
      [429, undefined, 'rate_limited'],
      [p.overloaded, undefined, 'overloaded'],
      [401, undefined, 'auth'],
      [400, undefined, 'bad_request'],
      [400, p.tooLong, 'context_too_long'],
      [500, undefined, 'provider'],
    ];
    for (const [status, message, kind] of cases) {
      p.fail(status, message);
      for (const run of [() => p.language().complete(request()), () => p.language().stream(request(), () => {})]) {
        const err = await failure(run());
        expect([status, err.kind]).toEqual([status, kind]);
        expect(err.beforeFirstToken).toBe(true);
      }
    }
  });

  each('is a provider failure, before any token, when nothing listens', async (p) => {
    const err = await failure(p.language('http://127.0.0.1:9').complete(request()));
    expect([err.kind, err.status, err.beforeFirstToken]).toEqual(['provider', undefined, true]);
  });

  each('gives up at the deadline, whole and mid-stream', async (p) => {
    p.delay(TIMEOUT_MS * 4);
    expect((await failure(p.language().complete(request()))).kind).toBe('timeout');
    p.delay(0);
    p.chunkDelay(TIMEOUT_MS / 2);
    p.reply('one two three four five six seven eight nine ten eleven twelve');
    const deltas: string[] = [];
    const err = await failure(p.language().stream(request(), (d) => deltas.push(d)));
    expect(err.kind).toBe('timeout');
    expect(err.beforeFirstToken).toBe(deltas.length === 0);
  });

  each('stops when the caller leaves mid-stream', async (p) => {
    p.chunkDelay(20);
    p.reply('one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen');
    const left = new AbortController();
    const deltas: string[] = [];
    const err = await failure(
      p.language().stream(request({ signal: left.signal }), (d) => {
        deltas.push(d);
        left.abort();
      }),
    );
    expect([err.kind, err.beforeFirstToken]).toEqual(['aborted', false]);
    expect(deltas).toHaveLength(1);
  });
});
