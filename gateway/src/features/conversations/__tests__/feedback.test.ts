// Contract tests of the visitors' feedback (docs/product.md, Feedback, analytics and unanswered questions) through the gateway, against the real services and a fake
// OpenAI-compatible model: the messageId of the chat reply and the streamed done event, rating it
// (POST /api/chatbot/public/{uniqueId}/feedback), the refusals (404 for anything not the visitor's own
// answer, 400 for a bad rating or a wrong JSON type, 429 with the chat's message), and the rating
// beside the answer in the owner's history, REST and GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { api, gql, startStack, type Stack } from '../../../../test/stack.ts';
import { makePro, registerOwner, type Owner } from '../../../../test/chatbot-fixtures.ts';

let stack: Stack;
let fake: FakeOpenAI;

const RATE_PER_VISITOR = 6;
const MESSAGE_NOT_FOUND = { message: 'Message not found' };
const BAD_RATING = { message: 'Rating must be up or down' };
const RATE_LIMITED = { message: 'You are sending messages too quickly. Please wait a minute and try again.' };
const MESSAGE_ID = /^[1-9]\d*$/;

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply: () => 'A fake answer.' });
  stack = await startStack({
    chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url, CHAT_RATE_PER_VISITOR: String(RATE_PER_VISITOR) },
  });
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);

// Each visitor gets an address of their own, so the per-visitor limit never spills over.
let visitors = 0;
const newVisitorIp = () => `198.51.100.${++visitors}`;

interface Chatbot {
  _id: string;
  uniqueId: string;
}

async function ownerWithChatbot({ pro = false } = {}): Promise<{ owner: Owner; chatbot: Chatbot }> {
  const owner = await registerOwner(stack, 'feedback');
  if (pro) await makePro(stack, owner);
  const res = await call('/api/chatbot', { body: { name: 'Feedback Bot' }, token: owner.token });
  expect(res.status).toBe(201);
  return { owner, chatbot: res.body };
}

function chat(uniqueId: string, message: string, ip: string, sessionId?: string) {
  return call(`/api/chatbot/public/${uniqueId}/chat`, {
    body: { message, model: 'gpt-4o-mini', ...(sessionId ? { sessionId } : {}) },
    headers: { 'x-forwarded-for': ip },
  });
}

function rate(uniqueId: string, body: unknown, ip: string) {
  return call(`/api/chatbot/public/${uniqueId}/feedback`, { body, headers: { 'x-forwarded-for': ip } });
}

function doneEvent(text: string): any {
  const block = text.split('\n\n').find((b) => b.startsWith('event: done'));
  return block && JSON.parse(block.slice(block.indexOf('data: ') + 'data: '.length));
}

describe('messageId', () => {
  it('comes with the JSON reply and the streamed done event, and each is rateable', async () => {
    const { chatbot } = await ownerWithChatbot();
    const ip = newVisitorIp();
    const json = await chat(chatbot.uniqueId, 'Hello there', ip);
    expect(json.status).toBe(200);
    expect(json.body.messageId).toMatch(MESSAGE_ID);

    const streamed = await fetch(`${stack.url}/api/chatbot/public/${chatbot.uniqueId}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': ip },
      body: JSON.stringify({ message: 'And again', model: 'gpt-4o-mini', sessionId: json.body.sessionId }),
    });
    const done = doneEvent(await streamed.text());
    expect(done.messageId).toMatch(MESSAGE_ID);
    expect(done.messageId).not.toBe(json.body.messageId);
    expect(done.sessionId).toBe(json.body.sessionId);

    for (const messageId of [json.body.messageId, done.messageId]) {
      const res = await rate(chatbot.uniqueId, { sessionId: json.body.sessionId, messageId, rating: 'up' }, ip);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ messageId, rating: 'up' });
    }
  });
});

describe('POST /api/chatbot/public/:uniqueId/feedback', () => {
  it("keeps one rating per answer, changeable, and shows it beside the answer in the owner's history", async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    const ip = newVisitorIp();
    const first = await chat(chatbot.uniqueId, 'First question', ip);
    const second = await chat(chatbot.uniqueId, 'Second question', ip, first.body.sessionId);
    const { sessionId } = first.body;

    expect((await rate(chatbot.uniqueId, { sessionId, messageId: first.body.messageId, rating: 'up' }, ip)).body).toEqual({
      messageId: first.body.messageId,
      rating: 'up',
    });
    // Changed, then the same again: still one rating.
    expect((await rate(chatbot.uniqueId, { sessionId, messageId: first.body.messageId, rating: 'down' }, ip)).status).toBe(200);
    expect((await rate(chatbot.uniqueId, { sessionId, messageId: first.body.messageId, rating: 'down' }, ip)).body).toEqual({
      messageId: first.body.messageId,
      rating: 'down',
    });

    const list = await call(`/api/chatbot/${chatbot._id}/conversations`, { token: owner.token });
    expect(list.body).toHaveLength(1);
    const detail = await call(`/api/chatbot/${chatbot._id}/conversations/${list.body[0]._id}`, { token: owner.token });
    expect(detail.status).toBe(200);
    expect(detail.body.messages.map((m: any) => ({ role: m.role, content: m.content, rating: m.rating }))).toEqual([
      { role: 'user', content: 'First question', rating: null },
      { role: 'assistant', content: first.body.message, rating: 'down' },
      { role: 'user', content: 'Second question', rating: null },
      { role: 'assistant', content: second.body.message, rating: null },
    ]);
    const answers = detail.body.messages.filter((m: any) => m.role === 'assistant');
    expect(answers.map((m: any) => m.id)).toEqual([first.body.messageId, second.body.messageId]);
    for (const m of detail.body.messages) expect(m.id).toMatch(MESSAGE_ID);

    const g = await gql(
      stack.url,
      `query ($chatbotId: ID!, $id: ID!) { conversation(chatbotId: $chatbotId, id: $id) { messages { id role content timestamp rating sources { entryId } authorName model { id displayName provider } fallback } } }`,
      { chatbotId: chatbot._id, id: list.body[0]._id },
      owner.token,
    );
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.conversation.messages).toEqual(detail.body.messages);
  });

  it("answers 404 for another visitor's answer, a visitor message, an unknown or malformed id, another chatbot's answer", async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    const ip = newVisitorIp();
    const mine = await chat(chatbot.uniqueId, 'My question', ip);
    const theirs = await chat(chatbot.uniqueId, 'Their question', newVisitorIp());
    const { sessionId } = mine.body;

    const list = await call(`/api/chatbot/${chatbot._id}/conversations`, { token: owner.token });
    const myConversation = list.body.find((c: any) => c.sessionId === sessionId);
    const detail = await call(`/api/chatbot/${chatbot._id}/conversations/${myConversation._id}`, { token: owner.token });
    const myQuestionId = detail.body.messages.find((m: any) => m.role === 'user').id;

    const { chatbot: otherBot } = await ownerWithChatbot();
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ["another visitor's answer", chatbot.uniqueId, { sessionId, messageId: theirs.body.messageId }],
      ['the visitor message', chatbot.uniqueId, { sessionId, messageId: myQuestionId }],
      ['an unknown id', chatbot.uniqueId, { sessionId, messageId: '999999999' }],
      ['a malformed id', chatbot.uniqueId, { sessionId, messageId: 'not-an-id' }],
      ['an empty id', chatbot.uniqueId, { sessionId, messageId: '' }],
      ['a made-up session', chatbot.uniqueId, { sessionId: 'made-up-session', messageId: mine.body.messageId }],
      ["another chatbot's page", otherBot.uniqueId, { sessionId, messageId: mine.body.messageId }],
    ];
    for (const [label, uniqueId, body] of cases) {
      const res = await rate(uniqueId, { ...body, rating: 'up' }, ip);
      expect({ label, status: res.status, body: res.body }).toEqual({ label, status: 404, body: MESSAGE_NOT_FOUND });
    }
    // Nothing of it was stored.
    const after = await call(`/api/chatbot/${chatbot._id}/conversations/${myConversation._id}`, { token: owner.token });
    expect(after.body.messages.map((m: any) => m.rating)).toEqual([null, null]);
  });

  it('answers 400 for a bad rating and for fields of the wrong JSON type', async () => {
    const { chatbot } = await ownerWithChatbot();
    const ip = newVisitorIp();
    const { body: reply } = await chat(chatbot.uniqueId, 'Rate me', ip);
    const valid = { sessionId: reply.sessionId, messageId: reply.messageId, rating: 'up' };
    for (const rating of ['meh', '', 'thumbs-up']) {
      const res = await rate(chatbot.uniqueId, { ...valid, rating }, ip);
      expect({ rating, status: res.status, body: res.body }).toEqual({ rating, status: 400, body: BAD_RATING });
    }
    expect((await rate(chatbot.uniqueId, { sessionId: valid.sessionId, messageId: valid.messageId }, ip)).body).toEqual(BAD_RATING);
    const wrongTypes: Array<[Record<string, unknown>, string]> = [
      [{ ...valid, rating: 1 }, 'rating must be a string'],
      [{ ...valid, messageId: Number(valid.messageId) }, 'messageId must be a string'],
      [{ ...valid, sessionId: ['a'] }, 'sessionId must be a string'],
    ];
    for (const [body, message] of wrongTypes) {
      const res = await rate(chatbot.uniqueId, body, ip);
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { message } });
    }
    const notObject = await rate(chatbot.uniqueId, ['up'], ip);
    expect(notObject.status).toBe(400);
  });

  it("answers 404 for an unknown chatbot's page", async () => {
    const res = await rate('no-such-bot', { sessionId: 'x', messageId: '1', rating: 'up' }, newVisitorIp());
    expect(res.status).toBe(404);
    expect(typeof res.body.message).toBe('string');
  });

  it("counts against the visitor's chat rate limit: 429 with the chat's message", async () => {
    const { chatbot } = await ownerWithChatbot();
    const ip = newVisitorIp();
    const { body: reply } = await chat(chatbot.uniqueId, 'One question', ip);
    const ratingOf = (i: number) => ({ sessionId: reply.sessionId, messageId: reply.messageId, rating: i % 2 ? 'up' : 'down' });
    // The message took one of the visitor's allowance; ratings take the rest.
    for (let i = 1; i < RATE_PER_VISITOR; i++) expect((await rate(chatbot.uniqueId, ratingOf(i), ip)).status).toBe(200);
    const limited = await rate(chatbot.uniqueId, ratingOf(0), ip);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual(RATE_LIMITED);
    // And a message after it is refused the same way.
    expect((await chat(chatbot.uniqueId, 'Another', ip, reply.sessionId)).status).toBe(429);
    // Another visitor is not affected.
    expect((await chat(chatbot.uniqueId, 'Hi', newVisitorIp())).status).toBe(200);
  });
});
