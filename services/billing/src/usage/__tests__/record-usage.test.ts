import { describe, expect, it } from 'vitest';
import { Code, ConnectError } from '@connectrpc/connect';
import { MAX_TOKENS } from '../../core/usage-input.ts';
import { parseUsage, type RecordUsageInput } from '../record-usage.ts';

const valid: RecordUsageInput = {
  requestId: ' req-1 ',
  ownerId: ' owner-1 ',
  chatbotId: 'bot-1',
  chatbotName: 'Support bot',
  model: 'gpt-4o-mini',
  promptTokens: 1000n,
  completionTokens: 500,
  occurredAt: new Date('2026-01-01T00:00:00Z'),
};

const invalidArgument = (input: RecordUsageInput) => {
  try {
    parseUsage(input);
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.InvalidArgument) return err.rawMessage;
    throw err;
  }
  throw new Error('expected InvalidArgument');
};

describe('parseUsage', () => {
  it('trims ids and accepts token counts as bigint (the proto int64) or number', () => {
    expect(parseUsage(valid)).toEqual({
      requestId: 'req-1',
      ownerId: 'owner-1',
      chatbotId: 'bot-1',
      chatbotName: 'Support bot',
      model: 'gpt-4o-mini',
      promptTokens: 1000,
      completionTokens: 500,
      occurredAt: valid.occurredAt,
      apiKeyId: null,
      provider: 'openai',
      cachedPromptTokens: 0,
      reasoningTokens: 0,
      ownKey: false,
      fallback: false,
    });
  });

  it('keeps the provider, cached and reasoning tokens, own key and fallback; refuses an unknown provider', () => {
    expect(
      parseUsage({ ...valid, provider: 'gemini', cachedPromptTokens: 12n, reasoningTokens: 3, ownKey: true, fallback: true }),
    ).toMatchObject({ provider: 'gemini', cachedPromptTokens: 12, reasoningTokens: 3, ownKey: true, fallback: true });
    expect(() => parseUsage({ ...valid, provider: 'mistral' })).toThrow(/provider must be one of openai, anthropic, gemini/);
    expect(() => parseUsage({ ...valid, cachedPromptTokens: -1 })).toThrow(/cached_prompt_tokens must be a whole number/);
  });

  it('keeps the developer API key an answer was asked through; none for the public chat', () => {
    expect(parseUsage({ ...valid, apiKeyId: 'key-1' }).apiKeyId).toBe('key-1');
    expect(parseUsage({ ...valid, apiKeyId: '' }).apiKeyId).toBeNull();
  });

  it('accepts zero and the largest token counts', () => {
    expect(parseUsage({ ...valid, promptTokens: 0n, completionTokens: BigInt(MAX_TOKENS) })).toMatchObject({
      promptTokens: 0,
      completionTokens: MAX_TOKENS,
    });
  });

  it.each([
    [{ promptTokens: 1.5 }, /prompt_tokens must be a whole number/],
    [{ promptTokens: Number.NaN }, /prompt_tokens/],
    [{ completionTokens: -1n }, /completion_tokens/],
    [{ completionTokens: BigInt(MAX_TOKENS) + 1n }, /completion_tokens/],
    [{ chatbotId: '' }, /chatbot_id is required/],
    [{ chatbotName: '  ' }, /chatbot_name is required/],
    [{ model: 'm'.repeat(201) }, /model must be at most 200 characters/],
    [{ occurredAt: new Date('nope') }, /occurred_at is required/],
  ] as [Partial<RecordUsageInput>, RegExp][])('rejects %o', (overrides, message) => {
    expect(invalidArgument({ ...valid, ...overrides })).toMatch(message);
  });
});
