// ListModels: the catalogue's models this deployment offers, by the providers whose keys are set.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@parley/common/config.ts';
import { startChatStack, type ChatStack } from './harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack({ ANTHROPIC_API_KEY: 'test-anthropic-key' });
});
afterAll(async () => {
  await stack?.stop();
});

describe('ListModels', () => {
  it('lists the models of the providers with a key, the catalogue default marked, with prices and plans', async () => {
    const { models } = await stack.client.listModels({});
    expect(models.map((m) => [m.id, m.provider, m.isDefault])).toEqual([
      ['gpt-4o-mini', 'openai', true],
      ['gpt-4.1-mini', 'openai', false],
      ['gpt-4o', 'openai', false],
      ['claude-haiku-4-5', 'anthropic', false],
      ['claude-sonnet-4-5', 'anthropic', false],
    ]);
    expect(models.find((m) => m.id === 'claude-sonnet-4-5')).toMatchObject({
      displayName: 'Claude Sonnet 4.5',
      contextWindow: 200000,
      maxOutputTokens: 64000,
      inputPricePerMillion: '3.00',
      outputPricePerMillion: '15.00',
      streaming: true,
      tools: true,
      images: true,
      plans: ['pro'],
    });
  });

  it("reads MODEL_CATALOGUE_FILE, and marks another default when the catalogue's has no key", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parley-catalogue-'));
    const file = join(dir, 'models.jsonc');
    await writeFile(
      file,
      JSON.stringify({
        default: 'local',
        models: [
          {
            id: 'local',
            provider: 'openai',
            displayName: 'Local',
            contextWindow: 8192,
            maxOutputTokens: 512,
            inputPricePerMillion: '0',
            outputPricePerMillion: '0',
            plans: ['free'],
          },
          {
            id: 'flash',
            provider: 'gemini',
            displayName: 'Flash',
            contextWindow: 32768,
            maxOutputTokens: 1024,
            inputPricePerMillion: '0.30',
            outputPricePerMillion: '2.50',
            plans: ['free', 'pro'],
          },
        ],
      }),
    );
    const chat = await stack.startChat({ OPENAI_API_KEY: undefined, GEMINI_API_KEY: 'test-gemini-key', MODEL_CATALOGUE_FILE: file });
    const { models } = await chat.client.listModels({});
    expect(models.map((m) => [m.id, m.isDefault])).toEqual([['flash', true]]);
  });

  it('offers nothing with no provider key (the chatbots answer offline)', async () => {
    const chat = await stack.startChat({ OPENAI_API_KEY: undefined });
    expect((await chat.client.listModels({})).models).toEqual([]);
  });

  it('refuses to start on a malformed catalogue, naming its file and line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parley-catalogue-'));
    const file = join(dir, 'broken.jsonc');
    await writeFile(file, '{\n  "default": "x",\n  "models": [\n    { "id": "x", "provider": "mistral" }\n  ]\n}\n');
    const started = stack.startChat({ MODEL_CATALOGUE_FILE: file });
    await expect(started).rejects.toThrowError(ConfigError);
    await expect(started).rejects.toThrowError(`model catalogue ${file}, line 4`);
  });
});
