import { describe, expect, it } from 'vitest';
import { parseCatalogue } from '@parley/common/models/catalogue.ts';
import { loadCatalogue } from '@parley/common/models/catalogue.ts';
import { offeredModels } from '../offered-models.ts';

const key = { apiKey: 'k', baseURL: 'http://127.0.0.1:1' };

describe('offeredModels', () => {
  const catalogue = loadCatalogue({});

  it('offers the models of the configured providers only, in the catalogue order, the catalogue default marked', () => {
    const offered = offeredModels(catalogue, { openai: key, gemini: key });
    expect(offered.models.map((m) => m.id)).toEqual(['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4o', 'gemini-2.5-flash', 'gemini-2.5-pro']);
    expect(offered.defaultModel?.id).toBe('gpt-4o-mini');
    expect(offered.find('claude-haiku-4-5')).toBeUndefined();
    expect(offered.find('gemini-2.5-pro')?.provider).toBe('gemini');
  });

  it("defaults to the first free model offered when the catalogue default's provider has no key", () => {
    const offered = offeredModels(catalogue, { anthropic: key });
    expect(offered.models.map((m) => m.id)).toEqual(['claude-haiku-4-5', 'claude-sonnet-4-5']);
    expect(offered.defaultModel?.id).toBe('claude-haiku-4-5');
  });

  it('offers nothing without a key', () => {
    expect(offeredModels(catalogue, {})).toMatchObject({ models: [], defaultModel: null });
  });

  it('falls back to a pro model when no free one is offered', () => {
    const only = parseCatalogue(
      JSON.stringify({
        default: 'a',
        models: [
          {
            id: 'a',
            provider: 'openai',
            displayName: 'A',
            contextWindow: 8192,
            maxOutputTokens: 100,
            inputPricePerMillion: '1',
            outputPricePerMillion: '1',
            plans: ['free'],
          },
          {
            id: 'b',
            provider: 'gemini',
            displayName: 'B',
            contextWindow: 8192,
            maxOutputTokens: 100,
            inputPricePerMillion: '1',
            outputPricePerMillion: '1',
            plans: ['pro'],
          },
        ],
      }),
      'test',
    );
    expect(offeredModels(only, { gemini: key }).defaultModel?.id).toBe('b');
  });
});
