// Reason codes (docs/adr/0065-reason-codes.md) through the chat service's RPCs, one source each: the
// unanswered rule, the visitor's phrase, the model's handoff tool with its reason, a limit that
// stopped the message, and the button asked after an answer that helped. Each answer keeps its
// reason; the handoff asked after it takes it (the inbox shows and filters it); the analytics worker
// files an unanswered question with its reason (listed and filtered by it).
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_IN_TOOL_RULES, toolTriggers } from '@parley/common/testing/fake-openai.ts';
import { BAD_REASON } from '../../src/core/reasons.ts';
import { enableHandoff, until } from './handoff-helpers.ts';
import { rpcError, session, startChatStack, visitor, type ChatStack } from './harness.ts';

let stack: ChatStack;

beforeAll(async () => {
  stack = await startChatStack({ CHAT_RATE_PER_VISITOR: '10000', CHAT_RATE_PER_BOT: '10000' });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.fake.reset());

const triggers = toolTriggers([
  { pattern: /book (a|me a) flight/i, tool: 'handoff', args: () => ({ reason: 'not_supported' }) },
  { pattern: /made[- ]up reason/i, tool: 'handoff', args: () => ({ reason: 'because' }) },
  ...BUILT_IN_TOOL_RULES,
]);

/** A pro owner's chatbot with handoff on. */
async function handoffBot() {
  const bot = await stack.newChatbot({ knowledge: ['The shop opens at 9am.'] });
  await stack.makePro(bot.ownerId);
  await stack.setCredit(bot.ownerId, '10');
  await enableHandoff(stack.chatbots, bot);
  return bot;
}

const request = (uniqueId: string, sessionId: string) => ({ uniqueId, sessionId, clientIp: '203.0.113.7', siteHost: '', embedded: false });

const conversationOf = (chatbotId: string, sessionId: string) =>
  stack.parts.prisma.conversation.findUniqueOrThrow({ where: { chatbotId_sessionId: { chatbotId, sessionId } } });

/** The stored answers' reasons, oldest first. */
async function answerReasons(chatbotId: string, sessionId: string) {
  const c = await conversationOf(chatbotId, sessionId);
  const answers = await stack.parts.prisma.message.findMany({ where: { conversationId: c.id, role: 'assistant' }, orderBy: { id: 'asc' } });
  return answers.map((m) => m.reason);
}

/** Sends the messages, then asks for a person: the conversation's handoff reason. */
async function handoffAfter(bot: { id: string; uniqueId: string }, label: string, messages: string[]) {
  const sessionId = session(label);
  for (const m of messages) await stack.client.sendMessage(visitor(bot.uniqueId, m, { sessionId }));
  expect((await stack.client.requestHandoff(request(bot.uniqueId, sessionId))).state?.status).toBe('waiting');
  return { sessionId, reason: (await conversationOf(bot.id, sessionId)).handoffReason };
}

describe('the reason of an answer and of the handoff asked after it', () => {
  it('missing_knowledge: the answer cites nothing', async () => {
    const bot = await handoffBot();
    stack.fake.setBehaviour({ reply: 'I do not know that.' });
    const { sessionId, reason } = await handoffAfter(bot, 'rc-missing', ['Do you sell bicycles?']);
    expect(await answerReasons(bot.id, sessionId)).toEqual(['missing_knowledge']);
    expect(reason).toBe('missing_knowledge');
  });

  it('asked_for_person: the visitor asks for a person, even in an answer that cites the knowledge', async () => {
    const bot = await handoffBot();
    stack.fake.setBehaviour({ reply: 'We open at 9am [1].' });
    const { sessionId, reason } = await handoffAfter(bot, 'rc-phrase', ['When do you open? I want to talk to a person']);
    expect(await answerReasons(bot.id, sessionId)).toEqual(['asked_for_person']);
    expect(reason).toBe('asked_for_person');
  });

  it("the model's handoff tool: its reason when it is one of the codes, missing_knowledge for any other", async () => {
    const bot = await handoffBot();
    stack.fake.setBehaviour({ toolCalls: triggers, reply: 'A person can take over [1].' });
    const said = await stack.client.sendMessage(
      visitor(bot.uniqueId, 'Can you book me a flight to Paris?', { sessionId: session('rc-tool') }),
    );
    expect(said.offerHandoff).toBe(true);
    const tool = ((stack.fake.requests[0].tools ?? []) as { function: { name: string; parameters: { properties: object } } }[]).find(
      (t) => t.function.name === 'handoff',
    );
    expect(tool?.function.parameters.properties).toHaveProperty('reason');
    expect(await answerReasons(bot.id, session('rc-tool'))).toEqual(['not_supported']);
    await stack.client.requestHandoff(request(bot.uniqueId, session('rc-tool')));
    expect((await conversationOf(bot.id, session('rc-tool'))).handoffReason).toBe('not_supported');

    const odd = session('rc-tool-odd');
    await stack.client.sendMessage(visitor(bot.uniqueId, 'Give me a made-up reason', { sessionId: odd }));
    expect(await answerReasons(bot.id, odd)).toEqual(['missing_knowledge']);
  });

  it('limit_reached: a visitor limit stopped the message before the handoff was asked', async () => {
    const bot = await handoffBot();
    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, limits: { visitorMessagesPerDay: 1 } });
    stack.fake.setBehaviour({ reply: 'We open at 9am [1].' });
    const sessionId = session('rc-limit');
    await stack.client.sendMessage(visitor(bot.uniqueId, 'When do you open?', { sessionId }));
    const refused = await rpcError(stack.client.sendMessage(visitor(bot.uniqueId, 'And on Sunday?', { sessionId })));
    expect(refused.code).toBe(Code.ResourceExhausted);
    await stack.client.requestHandoff(request(bot.uniqueId, sessionId));
    expect((await conversationOf(bot.id, sessionId)).handoffReason).toBe('limit_reached');
  });

  it('asked_for_person: the button asked on its own after an answer that helped', async () => {
    const bot = await handoffBot();
    stack.fake.setBehaviour({ reply: 'We open at 9am [1].' });
    const { sessionId, reason } = await handoffAfter(bot, 'rc-button', ['When do you open?']);
    expect(await answerReasons(bot.id, sessionId)).toEqual([null]);
    expect(reason).toBe('asked_for_person');
  });
});

describe('the inbox and the unanswered questions by reason', () => {
  it('carries each handoff reason on the inbox row and keeps only one reason when asked', async () => {
    const bot = await handoffBot();
    stack.fake.setBehaviour({ reply: 'I do not know that.' });
    await handoffAfter(bot, 'rc-inbox-missing', ['Do you repair watches?']);
    await handoffAfter(bot, 'rc-inbox-person', ['Can I speak to a person?']);
    const all = await stack.client.listInbox({ ownerId: bot.ownerId });
    expect(all.waiting.map((i) => i.reason).sort()).toEqual(['asked_for_person', 'missing_knowledge']);
    const only = await stack.client.listInbox({ ownerId: bot.ownerId, reason: 'asked_for_person' });
    expect(only.waiting.map((i) => i.reason)).toEqual(['asked_for_person']);
    const bad = await rpcError(stack.client.listInbox({ ownerId: bot.ownerId, reason: 'bored' }));
    expect({ code: bad.code, message: bad.rawMessage }).toEqual({ code: Code.InvalidArgument, message: BAD_REASON });
  });

  it('files an unanswered question with its latest reason, listed and filtered by it', async () => {
    const bot = await handoffBot();
    stack.fake.setBehaviour({ reply: 'I do not know that.' });
    await stack.client.sendMessage(visitor(bot.uniqueId, 'Do you sell bicycles?', { sessionId: session('rc-q1') }));
    await stack.client.sendMessage(visitor(bot.uniqueId, 'Refund my parking ticket, I want a human', { sessionId: session('rc-q2') }));
    const list = (reason = '') => stack.client.listUnansweredQuestions({ ownerId: bot.ownerId, chatbotId: bot.id, status: 'all', reason });
    await until(async () => (await list()).questions.length === 2);
    const byQuestion = Object.fromEntries((await list()).questions.map((q) => [q.question, q.reason]));
    expect(byQuestion).toEqual({
      'Do you sell bicycles?': 'missing_knowledge',
      'Refund my parking ticket, I want a human': 'asked_for_person',
    });
    expect((await list('missing_knowledge')).questions.map((q) => q.question)).toEqual(['Do you sell bicycles?']);
    expect((await list('limit_reached')).questions).toEqual([]);
    const bad = await rpcError(list('whatever'));
    expect({ code: bad.code, message: bad.rawMessage }).toEqual({ code: Code.InvalidArgument, message: BAD_REASON });
  });
});

describe("answers in the visitor's language", () => {
  it("tells the model the chatbot's language, or the visitor's once the owner turns it on", async () => {
    const bot = await stack.newChatbot({ knowledge: ['Le magasin ouvre à 9 heures.'] });
    await stack.setCredit(bot.ownerId, '10');
    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, language: 'french' });
    stack.fake.setBehaviour({ reply: 'We open at 9am [1].' });
    const system = () => stack.fake.requests.at(-1)!.messages.find((m) => m.role === 'system')!.content;

    await stack.client.sendMessage(visitor(bot.uniqueId, 'When do you open?', { sessionId: session('lang-off') }));
    expect(system()).toContain('Always reply in French.');

    await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, voice: { answerInVisitorLanguage: true } });
    await stack.client.sendMessage(visitor(bot.uniqueId, 'When do you open?', { sessionId: session('lang-on') }));
    expect(system()).toContain(
      "Reply in the language of the visitor's last message; when you cannot tell which language it is, reply in French.",
    );
    expect(system()).not.toContain('Always reply in French.');
  });
});
