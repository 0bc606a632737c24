// A chatbot's voice: validated with the owner's messages, stored by UpdateChatbot (only the fields
// sent change), and answered in Chatbot.voice and PublicChatbot.voice.
import { create } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SuggestedQuestionsSchema, VoiceChangeSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from '../../../test/integration/harness.ts';
import {
  INSTRUCTIONS_TOO_LONG,
  NO_ANSWER_TOO_LONG,
  parseVoiceChange,
  SUGGESTED_QUESTION_TOO_LONG,
  TEMPERATURE_INVALID,
  TOO_MANY_SUGGESTED_QUESTIONS,
  WELCOME_TOO_LONG,
} from '../../core/chatbot-input.ts';

const questions = (...q: string[]) => ({ questions: q });
const message = (fn: () => unknown) => {
  try {
    fn();
    return 'valid';
  } catch (err) {
    return (err as Error & { rawMessage?: string }).rawMessage ?? (err as Error).message;
  }
};

describe('parseVoiceChange', () => {
  it('keeps what is not sent, trims text, drops empty questions and clears the temperature', () => {
    expect(parseVoiceChange(undefined)).toEqual({});
    expect(parseVoiceChange({ instructions: '  Be brief. ', suggestedQuestions: questions(' Hours? ', '', '  ') })).toEqual({
      instructions: 'Be brief.',
      suggestedQuestions: ['Hours?'],
      temperature: undefined,
      welcomeMessage: undefined,
      noAnswerMessage: undefined,
    });
    expect(parseVoiceChange({ temperature: 0.7, clearTemperature: true }).temperature).toBeNull();
    expect(parseVoiceChange({ temperature: 0 }).temperature).toBe(0);
    expect(parseVoiceChange({ temperature: 1.5 }).temperature).toBe(1.5);
  });

  it("answers each limit with the owner's message", () => {
    expect(message(() => parseVoiceChange({ instructions: 'a'.repeat(4000) }))).toBe('valid');
    expect(message(() => parseVoiceChange({ instructions: 'a'.repeat(4001) }))).toBe(INSTRUCTIONS_TOO_LONG);
    for (const t of [-0.1, 1.51, Number.NaN, Number.POSITIVE_INFINITY])
      expect(message(() => parseVoiceChange({ temperature: t }))).toBe(TEMPERATURE_INVALID);
    expect(message(() => parseVoiceChange({ welcomeMessage: '😀'.repeat(500) }))).toBe('valid');
    expect(message(() => parseVoiceChange({ welcomeMessage: 'a'.repeat(501) }))).toBe(WELCOME_TOO_LONG);
    expect(message(() => parseVoiceChange({ noAnswerMessage: 'a'.repeat(501) }))).toBe(NO_ANSWER_TOO_LONG);
    expect(message(() => parseVoiceChange({ suggestedQuestions: questions('a', 'b', 'c', 'd', '') }))).toBe('valid');
    expect(message(() => parseVoiceChange({ suggestedQuestions: questions('a', 'b', 'c', 'd', 'e') }))).toBe(TOO_MANY_SUGGESTED_QUESTIONS);
    expect(message(() => parseVoiceChange({ suggestedQuestions: questions(` ${'q'.repeat(120)} `) }))).toBe('valid');
    expect(message(() => parseVoiceChange({ suggestedQuestions: questions('q'.repeat(121)) }))).toBe(SUGGESTED_QUESTION_TOO_LONG);
  });
});

describe('UpdateChatbot voice', () => {
  let svc: TestChatbotService;
  beforeAll(async () => {
    svc = await startChatbotService();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('stores the fields sent and answers them in Chatbot.voice and PublicChatbot.voice', async () => {
    const ownerId = newOwner('voice');
    const bot = await svc.createChatbot(ownerId);
    expect(bot.voice).toMatchObject({ instructions: '', welcomeMessage: '', suggestedQuestions: [], noAnswerMessage: '' });
    expect(bot.voice!.temperature).toBeUndefined();

    const voice = create(VoiceChangeSchema, {
      instructions: 'Answer like a pirate.',
      temperature: 0.3,
      welcomeMessage: 'Ahoy! Ask me anything.',
      suggestedQuestions: create(SuggestedQuestionsSchema, { questions: ['Opening hours?', ' ', 'Delivery?'] }),
      noAnswerMessage: 'Arr, I know not.',
    });
    const { chatbot } = await svc.client.updateChatbot({ ownerId, chatbotId: bot.id, voice });
    const expected = {
      instructions: 'Answer like a pirate.',
      temperature: 0.3,
      welcomeMessage: 'Ahoy! Ask me anything.',
      suggestedQuestions: ['Opening hours?', 'Delivery?'],
      noAnswerMessage: 'Arr, I know not.',
    };
    expect(chatbot!.voice).toMatchObject(expected);
    expect((await svc.client.getPublicChatbot({ uniqueId: bot.uniqueId })).chatbot!.voice).toMatchObject(expected);

    // Only what is sent changes; the temperature goes back to the product's default when cleared.
    const { chatbot: renamed } = await svc.client.updateChatbot({
      ownerId,
      chatbotId: bot.id,
      name: 'Pirate',
      voice: create(VoiceChangeSchema, { clearTemperature: true }),
    });
    const { temperature: _, ...rest } = expected;
    expect(renamed!.voice).toMatchObject(rest);
    expect(renamed!.voice!.temperature).toBeUndefined();

    await expectRpcError(
      svc.client.updateChatbot({ ownerId, chatbotId: bot.id, voice: create(VoiceChangeSchema, { temperature: 2 }) }),
      Code.InvalidArgument,
      TEMPERATURE_INVALID,
    );
  });
});
