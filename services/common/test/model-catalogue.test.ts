import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config.ts';
import {
  answerCostUnits,
  dollarUnits,
  loadCatalogue,
  parseCatalogue,
  tokenCost,
  tokenCostUnits,
  unitsToDollars,
} from '../src/models/catalogue.ts';

const one = (over: Record<string, unknown> = {}) => ({
  id: 'm-1',
  provider: 'openai',
  displayName: 'Model one',
  contextWindow: 8192,
  maxOutputTokens: 1024,
  inputPricePerMillion: '0.15',
  outputPricePerMillion: '0.60',
  plans: ['free'],
  ...over,
});
const text = (models: unknown[], def = 'm-1') => JSON.stringify({ default: def, models }, null, 2);

describe('the model catalogue', () => {
  it('ships defaults with a free default model and every provider', () => {
    const c = loadCatalogue({});
    expect(c.defaultModel.id).toBe('gpt-4o-mini');
    expect(c.defaultModel.plans).toContain('free');
    expect(new Set(c.models.map((m) => m.provider))).toEqual(new Set(['openai', 'anthropic', 'gemini']));
    expect(c.find('gpt-4o-mini')).toMatchObject({ inputPricePerMillion: '0.15', outputPricePerMillion: '0.60' });
    expect(c.find('nope')).toBeUndefined();
  });

  it('reads an operator file with comments, named by MODEL_CATALOGUE_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalogue-'));
    const file = join(dir, 'models.jsonc');
    writeFileSync(file, `// ours\n{ "default": "m-1", "models": [${JSON.stringify(one())},] }\n`);
    const c = loadCatalogue({ MODEL_CATALOGUE_FILE: file });
    expect(c.models.map((m) => m.id)).toEqual(['m-1']);
    expect(c.models[0]!.capabilities).toEqual({ streaming: true, tools: false, images: false });
    expect(() => loadCatalogue({ MODEL_CATALOGUE_FILE: join(dir, 'missing.jsonc') })).toThrow(/cannot read .*missing\.jsonc \(ENOENT\)/);
  });

  it.each([
    ['a syntax error', '{\n  "default": "m-1",\n  "models": [\n    { "id": }\n  ]\n}', /file\.jsonc, line 4: ValueExpected/],
    ['a float price', text([one({ inputPricePerMillion: 0.15 })]), /line 10: models\[0\].inputPricePerMillion /],
    [
      'a price with 5 decimals',
      text([one({ outputPricePerMillion: '0.12345' })]),
      /line 11: models\[0\].outputPricePerMillion must be a decimal/,
    ],
    ['an unknown provider', text([one({ provider: 'acme' })]), /line 6: models\[0\].provider /],
    ['a missing field', text([{ ...one(), plans: undefined }]), /line 4: models\[0\]\.plans /],
    ['an unknown field', text([one({ colour: 'red' })]), /line 4: models\[0\] /],
    [
      'a context window that is not an integer',
      text([one({ contextWindow: 8192.5 })]),
      /line 8: models\[0\]\.contextWindow must be an integer/,
    ],
    ['a context window below 1024 tokens', text([one({ contextWindow: 512 })]), /line 8: models\[0\]\.contextWindow must be from 1024/],
    ['an empty provider model', text([one({ providerModel: '' })]), /line 15: models\[0\]\.providerModel must have at least 1 character/],
    ['an unknown plan', text([one({ plans: ['free', 'gold'] })]), /line 14: models\[0\]\.plans\[1\] must be one of "free", "pro"/],
    [
      'an unknown capability',
      text([one({ capabilities: { streaming: true, tools: false, images: false, audio: true } })]),
      /line 15: models\[0\]\.capabilities has unknown field "audio"/,
    ],
    [
      'a capability that is not a boolean',
      text([one({ capabilities: { streaming: 'yes', tools: false, images: false } })]),
      /models\[0\]\.capabilities\.streaming must be true or false/,
    ],
    ['no models', text([]), /line 3: models must list at least 1/],
    ['a duplicate id', text([one(), one()]), /line 17: models\[1\]\.id "m-1" is listed twice/],
    ['a default not listed', text([one()], 'm-2'), /line 2: default "m-2" is not one of the models listed/],
    [
      'a default not on the free plan',
      text([one({ plans: ['pro'] })]),
      /line 2: default the default model must be offered on the free plan/,
    ],
  ])('refuses %s, naming the line', (_what, body, message) => {
    let error: unknown;
    try {
      parseCatalogue(body, 'file.jsonc');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
  });

  it('prices tokens exactly, in integers', () => {
    expect(tokenCost(1_000_000, '0.15')).toBe('0.15');
    expect(tokenCost(1, '0.15')).toBe('0.00000015');
    expect(tokenCost(3, '0.0001')).toBe('0.0000000003');
    expect(tokenCost(0, '2.50')).toBe('0');
    expect(tokenCost(123_456_789, '15.00')).toBe('1851.851835');
  });

  it('counts money in 1e-10 dollar units, the same in every sum and comparison', () => {
    expect(tokenCostUnits(1, '0.15')).toBe(1500n);
    expect(dollarUnits('0.00000015')).toBe(1500n);
    expect(dollarUnits('12')).toBe(120_000_000_000n);
    expect(dollarUnits(tokenCost(123_456_789, '15.00'))).toBe(tokenCostUnits(123_456_789, '15.00'));
    expect(unitsToDollars(1n)).toBe('0.0000000001');
    expect(unitsToDollars(0n)).toBe('0');
    expect(unitsToDollars(dollarUnits('1851.851835'))).toBe('1851.851835');
    // 1,000 prompt tokens at $1.00 and 500 answer tokens at $5.00 a million: $0.001 + $0.0025.
    const cost = answerCostUnits({ inputPricePerMillion: '1.00', outputPricePerMillion: '5.00' }, 1000, 500);
    expect(unitsToDollars(cost)).toBe('0.0035');
  });
});
