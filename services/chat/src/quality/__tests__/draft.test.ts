// A side by side's draft (quality/draft.ts): checked when the run starts, applied to the chatbot the
// turn loaded; and each side's totals (runs.ts).
import { describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { PublicChatbotSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { ConnectError } from '@connectrpc/connect';
import { Prisma } from '../../generated/prisma/client.ts';
import { parseDraft, storedDraft, withDraft } from '../draft.ts';
import { totalsOf } from '../runs.ts';

const offered = { find: (id: string) => (id === 'gpt-4o-mini' || id === 'gpt-4.1-mini' ? ({ id } as never) : undefined) };
const message = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as ConnectError).rawMessage;
  }
  return null;
};

describe('a draft', () => {
  it('is none when not given, and names an offered model, bounded instructions and a temperature of 0 to 1.5', () => {
    expect(parseDraft(undefined, offered)).toBeNull();
    expect(parseDraft({ modelId: ' gpt-4.1-mini ', instructions: '  Be brief. ' }, offered)).toEqual({
      modelId: 'gpt-4.1-mini',
      instructions: 'Be brief.',
    });
    expect(parseDraft({ modelId: 'gpt-4o-mini', instructions: '', temperature: 0 }, offered)).toEqual({
      modelId: 'gpt-4o-mini',
      instructions: '',
      temperature: 0,
    });
    expect(message(() => parseDraft({ modelId: 'gpt-5', instructions: '' }, offered))).toBe(
      'Choose one of the offered models for the draft.',
    );
    expect(message(() => parseDraft({ modelId: 'gpt-4o-mini', instructions: '', temperature: 1.6 }, offered))).toBe(
      "The draft's temperature is between 0 and 1.5.",
    );
    expect(message(() => parseDraft({ modelId: 'gpt-4o-mini', instructions: '', temperature: Number.NaN }, offered))).toBe(
      "The draft's temperature is between 0 and 1.5.",
    );
    expect(message(() => parseDraft({ modelId: 'gpt-4o-mini', instructions: 'x'.repeat(4001) }, offered))).toBe(
      "The draft's instructions are too long (maximum 4000 characters).",
    );
  });

  it('is read back as stored, and nothing else is', () => {
    expect(storedDraft({ modelId: 'gpt-4o-mini', instructions: 'a', temperature: 0.5 })).toEqual({
      modelId: 'gpt-4o-mini',
      instructions: 'a',
      temperature: 0.5,
    });
    expect(storedDraft({ modelId: 'gpt-4o-mini', instructions: 'a' })).toEqual({ modelId: 'gpt-4o-mini', instructions: 'a' });
    expect(storedDraft(null)).toBeNull();
    expect(storedDraft({ modelId: 3 })).toBeNull();
  });

  it('replaces the model (keeping the fallback), the instructions and the temperature, and nothing else', () => {
    const bot = create(PublicChatbotSchema, {
      id: 'b',
      name: 'Museum',
      model: { modelId: 'gpt-4o-mini', fallbackModelId: 'claude-haiku-4-5' },
      voice: { instructions: 'Be warm.', temperature: 0.9, welcomeMessage: 'Hi!', noAnswerMessage: 'No idea.' },
    });
    const drafted = withDraft(bot, { modelId: 'gpt-4.1-mini', instructions: 'Be brief.' });
    expect(drafted.model).toMatchObject({ modelId: 'gpt-4.1-mini', fallbackModelId: 'claude-haiku-4-5' });
    expect(drafted.voice).toMatchObject({ instructions: 'Be brief.', welcomeMessage: 'Hi!', noAnswerMessage: 'No idea.' });
    expect(drafted.voice!.temperature).toBeUndefined();
    expect(drafted.name).toBe('Museum');
    // The loaded chatbot itself is untouched (it may be the prompt cache's).
    expect(bot.voice).toMatchObject({ instructions: 'Be warm.', temperature: 0.9 });
    expect(bot.model!.modelId).toBe('gpt-4o-mini');
  });
});

describe("a side's totals", () => {
  const result = (passed: boolean, cost: string, latencyMs: number, error = '') => ({
    passed,
    cost: new Prisma.Decimal(cost),
    latencyMs,
    error,
  });

  it('count the answers (errors left out), the exact cost per answer and the median latency', () => {
    const totals = totalsOf([
      result(true, '0.0001', 300),
      result(false, '0.0002', 100),
      result(true, '0.0004', 200),
      result(false, '0', 0, 'No credit'),
    ]);
    expect(totals).toMatchObject({ answered: 3, passed: 2, medianLatencyMs: 200 });
    expect(totals.costPerAnswer.toFixed()).toBe('0.0002333333');
    expect(totalsOf([result(true, '0.1', 100), result(true, '0.3', 201)])).toMatchObject({ medianLatencyMs: 151 });
    expect(totalsOf([])).toMatchObject({ answered: 0, passed: 0, medianLatencyMs: 0 });
    expect(totalsOf([]).costPerAnswer.toFixed()).toBe('0');
  });
});
