// The chatbot context's own rules, against a scripted chatbot service: what is kept and under which
// revision, which visitor error each failure of GetPromptKnowledge becomes, and which messages share
// a call in flight.
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { GetPromptKnowledgeResponseSchema, PublicChatbotSchema, type ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { createLogger } from '@parley/common/logger.ts';
import { chatbotContext } from '../chatbot-context.ts';
import { sighting, type Sighting } from '../../core/admission.ts';
import { PUBLIC_CHATBOT_NOT_FOUND } from '@parley/common/public-chatbot.ts';
import { ANSWER_FAILED, CHATBOT_UNAVAILABLE } from '../../core/visitor-errors.ts';

const logger = createLogger('chatbot-context-test', 'silent');
const bot = create(PublicChatbotSchema, { id: 'b1', ownerId: 'o1', name: 'Bot', language: 'english' });

function scripted(answers: (() => unknown)[], remember = true) {
  const calls: unknown[] = [];
  const chatbotService = {
    getPromptKnowledge: async (req: unknown) => {
      calls.push(req);
      const next = answers.shift();
      if (!next) throw new Error('no more answers');
      return next();
    },
  } as unknown as Client<typeof ChatbotService>;
  const context = chatbotContext({ chatbotService, logger, prefix: 'p', budgetChars: 1000, k: 0, remember });
  return { context, calls };
}

const whole = () => create(GetPromptKnowledgeResponseSchema, { chatbot: bot, passages: ['All of it.'], wholeKnowledge: true });
const allOfIt = [{ text: 'All of it.', entryId: '', title: '', url: '' }];
const retrieved = () => create(GetPromptKnowledgeResponseSchema, { chatbot: bot, passages: ['A chunk.'], wholeKnowledge: false });
const seen = (revision: string | null): Sighting => sighting({ id: 'b1', ownerId: 'o1' }, new Map([['p:chatbot-revision:b1', revision]]));
const input = { uniqueId: 'u1', message: 'hi' };

describe('chatbotContext', () => {
  it('learns whether the chatbot has handoff on, so its mirror is read along with the next message (ADR 34)', async () => {
    const withHandoff = create(PublicChatbotSchema, {
      id: 'b1',
      ownerId: 'o1',
      name: 'Bot',
      handoff: { enabled: true, timeoutSeconds: 300 },
    });
    const { context } = scripted([() => create(GetPromptKnowledgeResponseSchema, { chatbot: withHandoff, passages: ['A chunk.'] })]);
    await context.load(input, null);
    expect(context.known('u1')).toEqual({ id: 'b1', ownerId: 'o1', handoffOn: true });
  });

  it('asks with its budget, learns the chatbot, then keeps a whole-knowledge answer under the revision read before the call', async () => {
    const { context, calls } = scripted([whole, whole]);
    await context.load(input, null);
    expect(calls).toEqual([expect.objectContaining({ uniqueId: 'u1', query: 'hi', budgetChars: 1000, k: 0 })]);
    expect(context.known('u1')).toEqual({ id: 'b1', ownerId: 'o1', handoffOn: false });
    // Not kept yet: no revision was read for it.
    expect(context.caches.prompts.size).toBe(0);
    await context.load(input, seen('r1'));
    expect(await context.load(input, seen('r1'))).toEqual({ chatbot: bot, knowledge: allOfIt, qaMatch: null });
    expect(calls).toHaveLength(2);
    expect(context.readAlong({ id: 'b1', ownerId: 'o1' }, { sessionId: 's1', newConversation: false })).toBe('p:chatbot-revision:b1');
  });

  it('asks again under another revision, and never keeps retrieved chunks', async () => {
    const { context, calls } = scripted([whole, retrieved, retrieved]);
    await context.load(input, seen('r1'));
    await context.load(input, seen('r2'));
    expect(context.caches.prompts.size).toBe(0);
    await context.load(input, seen('r2'));
    expect(calls).toHaveLength(3);
  });

  it('keeps nothing for a revision read for another chatbot, nor in offline mode', async () => {
    const other = scripted([whole]);
    await other.context.load(input, { ...seen('r1'), chatbot: { id: 'b0', ownerId: 'o1' } });
    expect(other.context.caches.prompts.size).toBe(0);
    const offline = scripted([whole], false);
    await offline.context.load(input, seen('r1'));
    expect(offline.context.known('u1')).toBeUndefined();
    expect(offline.context.caches.prompts.size).toBe(0);
  });

  it('uses what it holds only when the revision was read for the chatbot held', async () => {
    const { context, calls } = scripted([whole, whole]);
    await context.load(input, seen(null));
    expect(context.caches.prompts.size).toBe(1);
    // Another chatbot's (missing) revision is also null: not a reason to trust the entry.
    await context.load(input, { ...seen(null), chatbot: { id: 'b0', ownerId: 'o0' } });
    expect(calls).toHaveLength(2);
  });

  it.each([
    [Code.NotFound, Code.NotFound, PUBLIC_CHATBOT_NOT_FOUND],
    [Code.Unavailable, Code.Unavailable, CHATBOT_UNAVAILABLE],
    [Code.DeadlineExceeded, Code.Unavailable, CHATBOT_UNAVAILABLE],
    [Code.Unimplemented, Code.Unavailable, CHATBOT_UNAVAILABLE],
    [Code.Internal, Code.Unavailable, ANSWER_FAILED],
  ])('turns a chatbot service failure %s into %s "%s"', async (failure, code, message) => {
    const { context } = scripted([() => Promise.reject(new ConnectError('x', failure))]);
    await expect(context.load(input, null)).rejects.toMatchObject({ code, rawMessage: message });
  });

  it('reads the knowledge with the entry each passage comes from, or the passages of an older chatbot service (uncitable)', async () => {
    const knowledge = [
      { text: 'We open at nine.', entryId: 'e1', title: 'Hours', url: '' },
      { text: 'Refunds in 30 days.', entryId: 'e2', title: 'Refunds', url: 'https://shop.example/refunds' },
    ];
    const cited = () =>
      create(GetPromptKnowledgeResponseSchema, { chatbot: bot, passages: knowledge.map((k) => k.text), knowledge, wholeKnowledge: true });
    const { context } = scripted([cited, whole]);
    expect((await context.load(input, null)).knowledge).toEqual(knowledge);
    expect((await context.load(input, null)).knowledge).toEqual(allOfIt);
  });

  it('passes on a Q&A match, and holds nothing for a chatbot with Q&A pairs, since any message may match one', async () => {
    const withPairs = create(PublicChatbotSchema, { ...bot, qaPairs: 2 });
    const qaMatch = { entryId: 'qa1', question: 'Do you ship abroad?', answer: 'Yes, to 30 countries.' };
    const matched = () =>
      create(GetPromptKnowledgeResponseSchema, { chatbot: withPairs, passages: ['All.'], wholeKnowledge: true, qaMatch });
    const unmatched = () => create(GetPromptKnowledgeResponseSchema, { chatbot: withPairs, passages: ['All.'], wholeKnowledge: true });
    const { context, calls } = scripted([matched, unmatched, unmatched]);
    expect((await context.load(input, seen('r1'))).qaMatch).toEqual(qaMatch);
    expect((await context.load(input, seen('r1'))).qaMatch).toBeNull();
    expect(context.caches.prompts.size).toBe(0);
    await context.load(input, seen('r1'));
    expect(calls).toHaveLength(3);
    // A chatbot without pairs is held again.
    const plain = scripted([whole]);
    await plain.context.load(input, seen('r1'));
    expect(plain.context.caches.prompts.size).toBe(1);
  });

  it('forgets what it kept for a chatbot that is gone', async () => {
    const { context } = scripted([whole, () => Promise.reject(new ConnectError('gone', Code.NotFound))]);
    await context.load(input, seen('r1'));
    expect(context.caches.prompts.size).toBe(1);
    await expect(context.load(input, seen('r2'))).rejects.toMatchObject({ code: Code.NotFound });
    expect(context.caches.prompts.size).toBe(0);
  });

  describe('messages that miss while a call is in flight', () => {
    const many = (n: number, context: ReturnType<typeof scripted>['context'], at: Sighting | null) =>
      Promise.allSettled(Array.from({ length: n }, (_, i) => context.load({ uniqueId: 'u1', message: `question ${i}` }, at)));

    it('share one call when it answers the whole knowledge: 200 first messages to a chatbot not held, one call', async () => {
      const { context, calls } = scripted([whole]);
      const loaded = await many(200, context, null);
      expect(calls).toHaveLength(1);
      expect(loaded.every((r) => r.status === 'fulfilled' && r.value.knowledge[0]!.text === 'All of it.')).toBe(true);
      // The same under a revision read, and kept for the next message.
      const again = scripted([whole]);
      await many(50, again.context, seen('r1'));
      expect(again.calls).toHaveLength(1);
      expect(again.context.caches.prompts.size).toBe(1);
    });

    it('do not share an answer that depends on the message: retrieved chunks, a Q&A match; each then asks with its own', async () => {
      const { context, calls } = scripted([retrieved, retrieved, retrieved]);
      await many(3, context, seen('r1'));
      expect(calls.map((c) => (c as { query: string }).query)).toEqual(['question 0', 'question 1', 'question 2']);
      const withPairs = create(PublicChatbotSchema, { ...bot, qaPairs: 1 });
      const pairs = () => create(GetPromptKnowledgeResponseSchema, { chatbot: withPairs, passages: ['All.'], wholeKnowledge: true });
      const qa = scripted([pairs, pairs]);
      await many(2, qa.context, seen('r1'));
      expect(qa.calls).toHaveLength(2);
    });

    it('do not share a call made under another revision, nor in offline mode', async () => {
      const { context, calls } = scripted([whole, whole]);
      await Promise.all([context.load(input, seen('r1')), context.load(input, seen('r2'))]);
      expect(calls).toHaveLength(2);
      const offline = scripted([whole, whole], false);
      await many(2, offline.context, null);
      expect(offline.calls).toHaveLength(2);
    });

    it('share its failure: each is told what the one call met, and the next message asks again', async () => {
      const { context, calls } = scripted([() => Promise.reject(new ConnectError('slow', Code.DeadlineExceeded)), whole]);
      const failed = await many(20, context, null);
      expect(calls).toHaveLength(1);
      expect(failed.every((r) => r.status === 'rejected' && (r.reason as ConnectError).rawMessage === CHATBOT_UNAVAILABLE)).toBe(true);
      expect((await context.load(input, null)).knowledge).toEqual(allOfIt);
      expect(calls).toHaveLength(2);
    });
  });
});
