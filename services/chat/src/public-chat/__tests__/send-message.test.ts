// The turn's own rules with every collaborator scripted: which steps a Q&A answer, a model answer and
// an offline answer take, what is cited, what is recorded, and the owner's temperature.
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { PublicChatbotSchema, VoiceSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { createLogger } from '@parley/common/logger.ts';
import type { ChatbotContext, Passage, PromptContext, QaAnswer } from '../chatbot-context.ts';
import type { LanguageModel, ModelAnswer, ModelRequest } from '../../models/language-model.ts';
import { noModels, oneModel } from '../../models/chat-models.ts';
import { loadCatalogue } from '@parley/common/models/catalogue.ts';
import type { PreparedTurn } from '../prepared-turn.ts';
import { sendMessage, streamMessage, type PublicChatDeps, type StreamEvent } from '../send-message.ts';
import { sessionIds } from '../../core/session-id.ts';
import type { Channel } from '../channels/channel.ts';
import { developerApi } from '../channels/developer-api.ts';
import { openAICompatible } from '../channels/openai-compatible.ts';
import { publicPage } from '../channels/public-page.ts';

const hours: Passage = { text: 'We open at nine.', entryId: 'e-hours', title: 'Hours', url: '' };
const refunds: Passage = { text: 'Refunds within 30 days.', entryId: 'e-refunds', title: 'Refunds', url: 'https://shop.example/refunds' };
const qaPair: QaAnswer = { entryId: 'e-qa', question: 'Do you ship abroad?', answer: 'Yes, to 30 countries [1].' };
const logger = createLogger('send-message-test', 'silent');
const BOUNDS = { maxMessageChars: 1000, maxOutputTokens: 100, promptKnowledgeChars: 5000, historyChars: 1000 };

function scripted(opts: {
  knowledge?: Passage[];
  qaMatch?: QaAnswer | null;
  reply?: string | ((req: ModelRequest) => string);
  temperature?: number;
  offline?: boolean;
  privacy?: { redactPersonalData: boolean; keepOriginal: boolean; patterns: string[] };
}) {
  const calls: string[] = [];
  const recorded: { turn: PreparedTurn; text: string; usage: ModelAnswer | null }[] = [];
  const requests: ModelRequest[] = [];
  /** Whom admission and the day's count were asked to count. */
  const counted: { rateLimited: (string | null)[]; today: (string | null)[] } = { rateLimited: [], today: [] };
  const chatbot = create(PublicChatbotSchema, {
    id: 'b1',
    ownerId: 'o1',
    name: 'Shop',
    language: 'english',
    voice: create(VoiceSchema, { instructions: 'Be brief.', noAnswerMessage: 'Ask us by mail.', temperature: opts.temperature }),
    privacy: opts.privacy,
  });
  const context: PromptContext = { chatbot, knowledge: opts.knowledge ?? [hours, refunds], qaMatch: opts.qaMatch ?? null };
  const answerOf = (req: ModelRequest): ModelAnswer => ({
    text: typeof opts.reply === 'function' ? opts.reply(req) : (opts.reply ?? 'Nine [1].'),
    promptTokens: 10,
    completionTokens: 3,
    cachedPromptTokens: 0,
    reasoningTokens: 0,
    usageReported: true,
    toolCalls: [],
    model: 'gpt-4o-mini',
    provider: 'openai',
    fallback: false,
  });
  const model: LanguageModel = {
    complete: async (req) => {
      calls.push('model');
      requests.push(req);
      return answerOf(req);
    },
    stream: async (req, onDelta) => {
      calls.push('model');
      requests.push(req);
      const { text } = answerOf(req);
      for (const piece of text.match(/.{1,3}/gs) ?? []) onDelta(piece);
      return answerOf(req);
    },
  };
  const deps: PublicChatDeps = {
    logger,
    sessionIds: sessionIds('a-test-secret-of-some-length'),
    admission: {
      admit: async (visitor) => {
        calls.push('admission');
        counted.rateLimited.push(visitor.clientIp);
        return [];
      },
    },
    chatbotContext: {
      known: () => undefined,
      readAlong: (known: { id: string }) => `rev:${known.id}`,
      load: async () => {
        calls.push('chatbot');
        return context;
      },
    } as unknown as ChatbotContext,
    history: {
      readAlong: () => 'kept',
      load: async () => {
        calls.push('history');
        return [];
      },
      remember: async () => {},
      forget: async () => {},
    },
    proofOfWork: {
      challenge: async () => {
        throw new Error('not asked here');
      },
      redeem: async () => {
        calls.push('proof');
      },
    },
    dailyMessages: {
      count: async (q) => {
        calls.push('day-limits');
        counted.today.push(q.clientIp);
        return { chatbotId: q.chatbotId, day: q.day, visitorKey: null };
      },
      uncount: async () => {},
    },
    credit: {
      reserve: async () => {
        calls.push('credit');
      },
      release: async () => {
        calls.push('release');
      },
    },
    models: opts.offline ? noModels : oneModel(model, loadCatalogue({}).defaultModel, BOUNDS, logger),
    recorder: {
      record: async (turn, answer, usage) => {
        calls.push('record');
        recorded.push({ turn, text: answer.message, usage });
        return '1';
      },
    },
    bounds: BOUNDS,
  };
  return { deps, calls, recorded, requests, counted };
}

const message = (text = 'When do you open?') => ({ uniqueId: 'u1', sessionId: '', message: text, model: '', clientIp: '', userAgent: '' });

async function collect(events: AsyncGenerator<StreamEvent>) {
  const deltas: string[] = [];
  for await (const event of events) {
    if ('delta' in event) deltas.push(event.delta);
    else if ('done' in event) return { deltas, done: event.done };
  }
  throw new Error('no done event');
}

describe('a Q&A answer', () => {
  it("is the owner's answer verbatim, citing the pair, with no history, no credit and no model", async () => {
    const { deps, calls, recorded } = scripted({ qaMatch: qaPair });
    const result = await sendMessage(deps, message('Do you ship abroad?'));
    expect(result).toMatchObject({
      message: 'Yes, to 30 countries [1].',
      sources: [{ entryId: 'e-qa', title: 'Do you ship abroad?', url: '' }],
    });
    expect(calls).toEqual(['admission', 'chatbot', 'day-limits', 'record']);
    expect(recorded[0]).toMatchObject({ text: 'Yes, to 30 countries [1].', usage: null, turn: { kind: 'qa' } });
    // Nothing is billed, and the answer says so.
    expect(result.usage).toBeNull();
  });

  it('wins in offline mode too, and streams as one delta then done', async () => {
    const { deps, calls } = scripted({ qaMatch: qaPair, offline: true });
    const { deltas, done } = await collect(streamMessage(deps, message('Do you ship abroad?')));
    expect(deltas).toEqual(['Yes, to 30 countries [1].']);
    expect(done.sources).toEqual([{ entryId: 'e-qa', title: 'Do you ship abroad?', url: '' }]);
    expect(calls).toEqual(['admission', 'chatbot', 'day-limits', 'record']);
  });
});

describe('a model answer', () => {
  it('numbers the knowledge in the prompt, then cites the passages the answer tagged, renumbered', async () => {
    const { deps, calls, recorded, requests } = scripted({ reply: 'Refunds take 30 days [2]. We open at nine [1][7].' });
    const result = await sendMessage(deps, message());
    expect(result.message).toBe('Refunds take 30 days [1]. We open at nine [2].');
    expect(result.sources).toEqual([
      { entryId: 'e-refunds', title: 'Refunds', url: 'https://shop.example/refunds' },
      { entryId: 'e-hours', title: 'Hours', url: '' },
    ]);
    expect(calls).toEqual(['admission', 'chatbot', 'day-limits', 'history', 'credit', 'model', 'record']);
    const system = requests[0].messages[0].content;
    expect(system).toContain('[1] Hours\nWe open at nine.');
    expect(system).toContain('[2] Refunds\nRefunds within 30 days.');
    expect(system).toContain('<owner_instructions>');
    expect(system).toContain('<no_answer>\nAsk us by mail.\n</no_answer>');
    // What the visitor finally sees is what is recorded; the usage is the model's.
    expect(recorded[0].text).toBe(result.message);
    expect(recorded[0].usage?.text).toBe('Refunds take 30 days [2]. We open at nine [1][7].');
    // The answer carries the counts it is billed for.
    expect(result.usage).toEqual({ promptTokens: 10, completionTokens: 3 });
  });

  it('cites nothing when the answer tags nothing', async () => {
    const { deps } = scripted({ reply: 'Ask us by mail.' });
    expect(await sendMessage(deps, message())).toMatchObject({ message: 'Ask us by mail.', sources: [] });
  });

  it("streams the model's words as they come, and the rewritten message with its sources in done", async () => {
    const { deps, recorded } = scripted({ reply: 'Refunds [2].' });
    const { deltas, done } = await collect(streamMessage(deps, message()));
    expect(deltas.join('')).toBe('Refunds [2].');
    expect(done).toMatchObject({
      message: 'Refunds [1].',
      sources: [{ entryId: 'e-refunds' }],
      usage: { promptTokens: 10, completionTokens: 3 },
    });
    expect(recorded[0].text).toBe('Refunds [1].');
  });

  it("passes the owner's temperature, and none when the owner set none", async () => {
    const warm = scripted({ temperature: 1.2 });
    await sendMessage(warm.deps, message());
    expect(warm.requests[0].temperature).toBe(1.2);
    const plain = scripted({});
    await sendMessage(plain.deps, message());
    expect(plain.requests[0].temperature).toBeUndefined();
  });
});

describe('an offline answer', () => {
  it('quotes and cites the passages, with no history, no credit and no model', async () => {
    const { deps, calls } = scripted({ offline: true });
    const result = await sendMessage(deps, message());
    expect(result.message).toContain('> We open at nine. [1]');
    expect(result.message).toContain('> Refunds within 30 days. [2]');
    expect(result.sources.map((s) => s.entryId)).toEqual(['e-hours', 'e-refunds']);
    expect(result.usage).toBeNull();
    expect(calls).toEqual(['admission', 'chatbot', 'day-limits', 'record']);
  });
});

describe('the channel', () => {
  const textAlone: Channel = { ...publicPage, name: 'text alone', answer: { citations: 'plain', streams: false } };

  it('counts a developer API key as one visitor of the rate limit, and the address for the day', async () => {
    const { deps, counted } = scripted({});
    await sendMessage(deps, { ...message(), clientIp: '203.0.113.7', apiKeyId: 'k1' }, developerApi);
    await sendMessage(deps, { ...message(), clientIp: '203.0.113.7' }, publicPage);
    expect(counted).toEqual({ rateLimited: ['key:k1', '203.0.113.7'], today: ['203.0.113.7', '203.0.113.7'] });
  });

  it("answers the OpenAI-compatible endpoint from the client's own history, reading no conversation", async () => {
    const { deps, calls, requests } = scripted({});
    const history = [
      { role: 'user', content: 'Are you open on Sundays?' },
      { role: 'assistant', content: 'No, we are closed on Sundays.' },
    ];
    await sendMessage(deps, { ...message(), apiKeyId: 'k1', history }, openAICompatible);
    expect(calls).toEqual(['admission', 'chatbot', 'day-limits', 'credit', 'model', 'record']);
    expect(requests[0].messages.map((m) => m.content)).toEqual(expect.arrayContaining(history.map((t) => t.content)));
    // The same message on a channel that keeps its conversation reads it instead.
    const kept = scripted({});
    await sendMessage(kept.deps, { ...message(), apiKeyId: 'k1', history }, developerApi);
    expect(kept.calls).toContain('history');
    expect(kept.requests[0].messages.map((m) => m.content)).not.toContain('Are you open on Sundays?');
  });

  it('shows text alone without its markers, keeping its sources, and sends it once, whole', async () => {
    const { deps, recorded } = scripted({ reply: 'Refunds take 30 days [2]. We open at nine [1].' });
    const { deltas, done } = await collect(streamMessage(deps, message(), textAlone));
    expect(deltas).toEqual([]);
    expect(done).toMatchObject({
      message: 'Refunds take 30 days. We open at nine.',
      sources: [{ entryId: 'e-refunds' }, { entryId: 'e-hours' }],
    });
    expect(recorded[0].text).toBe('Refunds take 30 days. We open at nine.');
    const qa = scripted({ qaMatch: qaPair });
    expect(await sendMessage(qa.deps, message('Do you ship abroad?'), textAlone)).toMatchObject({
      message: 'Yes, to 30 countries.',
      sources: [{ entryId: 'e-qa' }],
    });
  });
});

describe('personal data kept from the model', () => {
  const privacy = { redactPersonalData: true, keepOriginal: false, patterns: [] };
  // The model echoes what it read, so the visitor's answer shows what was put back.
  const echo = (req: ModelRequest) => `You said: ${req.messages.at(-1)!.content} [1]`;
  const text = 'Mail jo@example.com or call +1 415-555-0100';

  it('gives the model placeholders and the visitor, streamed in pieces that split them, the details back', async () => {
    const { deps, requests, recorded } = scripted({ reply: echo, privacy });
    const { deltas, done } = await collect(streamMessage(deps, message(text)));
    expect(requests[0]!.messages.at(-1)!.content).toBe('Mail [EMAIL_1] or call [PHONE_1]');
    // The scripted model streams three characters at a time: "[EM", "AIL", "_1]" are put back whole.
    expect(deltas.join('')).toBe(`You said: ${text} [1]`);
    expect(deltas.some((d) => d.includes('[') && !d.includes('[1]') && /\[[A-Z]/.test(d))).toBe(false);
    expect(done.message).toBe(`You said: ${text} [1]`);
    expect(recorded[0]!.turn.privacy).not.toBeNull();
  });

  it('restores an answer that is not streamed', async () => {
    const { deps } = scripted({ reply: echo, privacy });
    expect((await sendMessage(deps, message(text))).message).toBe(`You said: ${text} [1]`);
  });

  it('leaves the turn as it was for a chatbot with it off', async () => {
    const { deps, requests, recorded } = scripted({ reply: echo });
    expect((await sendMessage(deps, message(text))).message).toBe(`You said: ${text} [1]`);
    expect(requests[0]!.messages.at(-1)!.content).toBe(text);
    expect(recorded[0]!.turn.privacy).toBeNull();
  });
});
