// The model that gave each answer in a conversation's detail (docs/product.md, The model): the owner
// reads it on REST (the History tab's conversation), GraphQL (conversation and inboxConversation) and
// the developer API's messages, with `fallback` true when the chosen model failed before its first
// token and its fallback answered. Real services; the official Anthropic and Gemini SDKs against
// their fakes, Anthropic told to fail.
import { startFakeAnthropic, type FakeAnthropic } from '@parley/common/testing/fake-anthropic.ts';
import { startFakeGemini, type FakeGemini } from '@parley/common/testing/fake-gemini.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, chatbotWithKnowledge, v1 } from './api-v1-fixtures.ts';
import { billingQuery } from './billing-fixtures.ts';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, startStack, type Stack } from './stack.ts';

let stack: Stack;
let anthropic: FakeAnthropic;
let gemini: FakeGemini;
beforeAll(async () => {
  [anthropic, gemini] = await Promise.all([startFakeAnthropic(), startFakeGemini()]);
  stack = await startStack({
    chatEnv: {
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: anthropic.url,
      GEMINI_API_KEY: 'gemini-test',
      GEMINI_BASE_URL: gemini.url,
    },
  });
});
afterAll(async () => {
  await stack?.close();
  await Promise.all([anthropic?.close(), gemini?.close()]);
});

const HAIKU = { id: 'claude-haiku-4-5', displayName: 'Claude Haiku 4.5', provider: 'anthropic' };
const FLASH = { id: 'gemini-2.5-flash', displayName: 'Gemini 2.5 Flash', provider: 'gemini' };

/** A pro owner's chatbot on Claude Haiku with Gemini Flash as its fallback, one answer from each, and the conversation's id. */
async function answeredByBoth(): Promise<{ owner: Owner; chatbotId: string; conversationId: string; secret: string }> {
  const owner = await registerOwner(stack, 'answering');
  await makePro(stack, owner);
  await billingQuery(stack, `UPDATE $schema."Account" SET "creditBalance" = 10 WHERE "userId" = $1`, [owner.userId]);
  const chatbotId = await chatbotWithKnowledge(stack, owner, 'Shop Bot');
  const changed = await api(stack.url, `/api/chatbot/${chatbotId}`, {
    method: 'PUT',
    body: { modelId: HAIKU.id, fallbackModelId: FLASH.id },
    token: owner.token,
  });
  expect(changed.status).toBe(200);
  const { secret } = await apiKeys(stack).create(owner, ['chat', 'conversations:read']);
  const first = await v1(stack, `/chatbots/${chatbotId}/chat`, secret, { body: { message: 'When does the shop open in the morning?' } });
  expect(first.status).toBe(200);
  anthropic.setBehaviour({ failWith: 529 });
  try {
    const second = await v1(stack, `/chatbots/${chatbotId}/chat`, secret, {
      body: { message: 'And when does the shop close in the afternoon?', conversationId: first.body.conversationId },
    });
    expect(second.status).toBe(200);
  } finally {
    anthropic.reset();
  }
  return { owner, chatbotId, conversationId: first.body.conversationId, secret };
}

/** What each message shows of the model that answered it. */
const answered = (messages: { role: string; model: unknown; fallback: boolean }[]) => messages.map((m) => [m.role, m.model, m.fallback]);
const EXPECTED = [
  ['user', null, false],
  ['assistant', HAIKU, false],
  ['user', null, false],
  ['assistant', FLASH, true],
];

describe("the model that gave each answer, in a conversation's detail", () => {
  let c: Awaited<ReturnType<typeof answeredByBoth>>;
  let historyId: string;
  beforeAll(async () => {
    c = await answeredByBoth();
    const list = await api(stack.url, `/api/chatbot/${c.chatbotId}/conversations`, { token: c.owner.token });
    expect(list.status).toBe(200);
    historyId = list.body[0]._id;
  });

  it('is on REST, the History tab’s conversation', async () => {
    const res = await api(stack.url, `/api/chatbot/${c.chatbotId}/conversations/${historyId}`, { token: c.owner.token });
    expect(res.status).toBe(200);
    expect(answered(res.body.messages)).toEqual(EXPECTED);
  });

  it('is on GraphQL, in the conversation and in the inbox’s conversation', async () => {
    const fields = 'role fallback model { id displayName provider }';
    const res = await gql(
      stack.url,
      `query($chatbotId: ID!, $id: ID!) { conversation(chatbotId: $chatbotId, id: $id) { messages { ${fields} } } }`,
      { chatbotId: c.chatbotId, id: historyId },
      c.owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(answered(res.body.data.conversation.messages)).toEqual(EXPECTED);
    const inbox = await gql(
      stack.url,
      `query($id: ID!) { inboxConversation(id: $id) { messages { ${fields} } } }`,
      { id: historyId },
      c.owner.token,
    );
    expect(inbox.body.errors).toBeUndefined();
    expect(answered(inbox.body.data.inboxConversation.messages)).toEqual(EXPECTED);
  });

  it('is on the developer API’s messages', async () => {
    const res = await v1(stack, `/chatbots/${c.chatbotId}/conversations/${c.conversationId}/messages`, c.secret);
    expect(res.status).toBe(200);
    expect(answered(res.body.data)).toEqual(EXPECTED);
  });
});
