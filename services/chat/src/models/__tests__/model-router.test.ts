import { describe, expect, it } from 'vitest';
import { loadCatalogue, parseCatalogue } from '@parley/common/models/catalogue.ts';
import { createLogger } from '@parley/common/logger.ts';
import { startFakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { chatModels, fitToWindow, PROMPT_FIXED_CHARS, CHARS_PER_TOKEN } from '../chat-models.ts';
import { fallsBack, withFallback } from '../fallback-model.ts';
import { LanguageModelError, type LanguageModel, type ModelAnswer } from '../language-model.ts';
import { modelRouter } from '../model-router.ts';

const catalogue = loadCatalogue({});
const key = { apiKey: 'k', baseURL: 'http://127.0.0.1:9' };
const BOUNDS = { maxMessageChars: 4000, maxOutputTokens: 800, promptKnowledgeChars: 12000, historyChars: 4000 };

/** A logger that keeps what was warned. */
function recordingLogger() {
  const warnings: string[] = [];
  const logger = createLogger('router-test', 'silent');
  logger.warn = ((_obj: unknown, msg?: string) => {
    warnings.push(msg ?? String(_obj));
  }) as typeof logger.warn;
  return { logger, warnings };
}

describe('the model router', () => {
  it("routes a chatbot's choice: its model when offered, else the default, logging an unknown id once; its fallback when offered", () => {
    const { logger, warnings } = recordingLogger();
    const router = modelRouter({ catalogue, endpoints: { openai: key, gemini: key }, timeoutMs: 1000, logger });
    expect(router.route(undefined)?.primary.model.id).toBe('gpt-4o-mini');
    expect(router.route({ modelId: '', fallbackModelId: '' })).toMatchObject({ primary: { model: { id: 'gpt-4o-mini' } }, fallback: null });
    const chosen = router.route({ modelId: 'gemini-2.5-pro', fallbackModelId: 'gpt-4o' })!;
    expect([chosen.primary.model.id, chosen.fallback?.model.id]).toEqual(['gemini-2.5-pro', 'gpt-4o']);
    // Anthropic has no key: its models are not offered; the choice reads as the default, and its fallback is dropped.
    const stale = router.route({ modelId: 'claude-haiku-4-5', fallbackModelId: 'claude-sonnet-4-5' })!;
    expect([stale.primary.model.id, stale.fallback]).toEqual(['gpt-4o-mini', null]);
    router.route({ modelId: 'claude-haiku-4-5', fallbackModelId: '' });
    expect(warnings.filter((w) => w.includes('does not offer'))).toHaveLength(2); // once per unknown id
    // A fallback equal to the model is none.
    expect(router.route({ modelId: 'gpt-4o', fallbackModelId: 'gpt-4o' })?.fallback).toBeNull();
  });

  it("warns of the operator's configuration from the deployment's router only, not again from a workspace's own-key router", () => {
    // A Gemini default with OPENAI_MODEL set (ignored), and the shipped default (OpenAI) with no OpenAI key.
    const model = { contextWindow: 100000, maxOutputTokens: 1000, inputPricePerMillion: '1', outputPricePerMillion: '1', plans: ['free'] };
    const geminiDefault = parseCatalogue(
      JSON.stringify({ default: 'g', models: [{ ...model, id: 'g', provider: 'gemini', displayName: 'G' }] }),
      'test',
    );
    for (const [cat, endpoints] of [
      [catalogue, { gemini: key }],
      [geminiDefault, { gemini: key }],
    ] as const) {
      const deployment = recordingLogger();
      modelRouter({ catalogue: cat, endpoints, timeoutMs: 1000, defaultProviderModel: 'llama3.1', logger: deployment.logger });
      expect(deployment.warnings).toHaveLength(1);
      const workspace = recordingLogger();
      modelRouter({
        catalogue: cat,
        endpoints,
        timeoutMs: 1000,
        defaultProviderModel: 'llama3.1',
        logger: workspace.logger,
        configurationWarnings: false,
      });
      expect(workspace.warnings).toEqual([]);
    }
  });

  it('routes nothing without a key: offline mode', () => {
    const router = modelRouter({ catalogue, endpoints: {}, timeoutMs: 1000, logger: recordingLogger().logger });
    expect(router.route({ modelId: 'gpt-4o-mini', fallbackModelId: '' })).toBeNull();
    expect(router.defaultModel).toBeNull();
  });

  it("sends OPENAI_MODEL as the provider's name of the catalogue's default model only, still billed as the default", async () => {
    const fake = await startFakeOpenAI({ reply: 'Hi.' });
    try {
      const router = modelRouter({
        catalogue,
        endpoints: { openai: { apiKey: 'k', baseURL: fake.url } },
        timeoutMs: 5000,
        defaultProviderModel: 'llama3.1',
        logger: recordingLogger().logger,
      });
      const req = { messages: [{ role: 'user' as const, content: 'Hello' }], maxTokens: 10 };
      const answer = await router.defaultModel!.language.complete(req);
      await router.route({ modelId: 'gpt-4o', fallbackModelId: '' })!.primary.language.complete(req);
      expect(fake.requests.map((r) => r.model)).toEqual(['llama3.1', 'gpt-4o']);
      expect(answer.model).toBe('gpt-4o-mini');
    } finally {
      await fake.close();
    }
  });
});

describe('fitting the prompt to the models', () => {
  it("keeps the service's budgets for a large window and shares out less in the same proportion for a small one", () => {
    expect(fitToWindow(BOUNDS, 128_000, 800)).toEqual({ knowledgeChars: 12000, historyChars: 4000 });
    const small = fitToWindow(BOUNDS, 8192, 800);
    const room = (8192 - 800) * CHARS_PER_TOKEN - PROMPT_FIXED_CHARS - BOUNDS.maxMessageChars;
    expect(small.knowledgeChars + small.historyChars).toBe(room);
    expect(small.knowledgeChars).toBe(Math.floor((room * 12000) / 16000));
    expect(fitToWindow(BOUNDS, 4096, 4000)).toEqual({ knowledgeChars: 0, historyChars: 0 });
  });

  it('caps the output and fits the window to the smaller of a model and its fallback, and holds at the dearer', async () => {
    const small = parseCatalogue(
      JSON.stringify({
        default: 'big',
        models: [
          {
            id: 'big',
            provider: 'openai',
            displayName: 'Big',
            contextWindow: 200000,
            maxOutputTokens: 4000,
            inputPricePerMillion: '1',
            outputPricePerMillion: '1',
            plans: ['free'],
          },
          {
            id: 'tiny',
            provider: 'openai',
            displayName: 'Tiny',
            contextWindow: 8192,
            maxOutputTokens: 256,
            inputPricePerMillion: '0.1',
            outputPricePerMillion: '9',
            plans: ['free'],
          },
        ],
      }),
      'test',
    );
    const router = modelRouter({ catalogue: small, endpoints: { openai: key }, timeoutMs: 1000, logger: recordingLogger().logger });
    const models = chatModels(router, BOUNDS, recordingLogger().logger);
    const alone = (await models.choose({ model: { modelId: 'big', fallbackModelId: '' } }))!;
    expect([alone.maxOutputTokens, alone.knowledgeChars, alone.historyChars]).toEqual([800, 12000, 4000]);
    const paired = (await models.choose({ model: { modelId: 'big', fallbackModelId: 'tiny' } }))!;
    expect(paired.maxOutputTokens).toBe(256);
    expect(paired).toMatchObject(fitToWindow(BOUNDS, 8192, 256));
    // tiny is cheaper to read and dearer to write: which one holds more depends on the prompt.
    expect(paired.holdModel(100)).toBe('tiny');
    expect(paired.holdModel(1_000_000)).toBe('big');
    // One chosen model per pair.
    expect(await models.choose({ model: { modelId: 'big', fallbackModelId: 'tiny' } })).toBe(paired);
  });
});

describe('the fallback', () => {
  const answer = (model: string): ModelAnswer => ({
    text: 'Hi.',
    promptTokens: 1,
    completionTokens: 1,
    cachedPromptTokens: 0,
    reasoningTokens: 0,
    usageReported: true,
    toolCalls: [],
    model,
    provider: 'openai',
    fallback: false,
  });
  const failing = (err: LanguageModelError): LanguageModel => ({
    complete: async () => {
      throw err;
    },
    stream: async () => {
      throw err;
    },
  });
  const answering = (model: string, calls: string[]): LanguageModel => ({
    complete: async () => {
      calls.push(model);
      return answer(model);
    },
    stream: async (_req, onDelta) => {
      calls.push(model);
      onDelta('Hi.');
      return answer(model);
    },
  });
  const entry = (id: string) => catalogue.find(id)!;
  const started = (kind: LanguageModelError['kind'], status?: number) => {
    const err = new LanguageModelError(kind, 'failed', status);
    err.beforeFirstToken = false;
    return err;
  };

  it('answers once with the fallback when the chosen model failed before its first token in a way another may not', async () => {
    for (const err of [
      new LanguageModelError('timeout', 'slow'),
      new LanguageModelError('rate_limited', '429', 429),
      new LanguageModelError('overloaded', '529', 529),
      new LanguageModelError('provider', 'refused'),
      new LanguageModelError('provider', '502', 502),
    ]) {
      const calls: string[] = [];
      const model = withFallback(
        { model: entry('gpt-4o'), language: failing(err), ownKey: false },
        { model: entry('gpt-4o-mini'), language: answering('gpt-4o-mini', calls), ownKey: false },
        recordingLogger().logger,
      );
      expect(await model.stream({ messages: [], maxTokens: 1 }, () => {})).toMatchObject({ model: 'gpt-4o-mini', fallback: true });
      expect(calls).toEqual(['gpt-4o-mini']);
    }
  });

  it('does not fall back on a refusal, an abort, or after the first token', async () => {
    for (const err of [
      new LanguageModelError('auth', '401', 401),
      new LanguageModelError('bad_request', '400', 400),
      new LanguageModelError('context_too_long', '400', 400),
      new LanguageModelError('aborted', 'left'),
      new LanguageModelError('provider', '404', 404),
      started('timeout'),
      started('overloaded', 529),
    ]) {
      expect(fallsBack(err)).toBe(false);
      const calls: string[] = [];
      const model = withFallback(
        { model: entry('gpt-4o'), language: failing(err), ownKey: false },
        { model: entry('gpt-4o-mini'), language: answering('gpt-4o-mini', calls), ownKey: false },
        recordingLogger().logger,
      );
      await expect(model.complete({ messages: [], maxTokens: 1 })).rejects.toBe(err);
      expect(calls).toEqual([]);
    }
    expect(fallsBack(new Error('not a model error'))).toBe(false);
  });
});
