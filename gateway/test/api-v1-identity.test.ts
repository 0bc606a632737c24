// Verified visitors through the gateway against the real services: the owner makes the chatbot's
// identity secret (GraphQL, shown once), a developer API client and the public chat send
// `visitor.userHash`, and the conversation carries the verified identity in the developer API and
// in the dashboard's History only when the hash matches; another workspace's chatbot is refused.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { apiKeys, chatbotWithKnowledge, v1 } from './api-v1-fixtures.ts';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, startStack, type Stack } from './stack.ts';

let stack: Stack;
let fake: FakeOpenAI;
let owner: Owner;
let bot: string;
let uniqueId: string;
let key: string;
let secret: string;

const CREATE = `mutation ($chatbotId: ID!) { createIdentitySecret(chatbotId: $chatbotId) { secret createdAt } }`;
const STATUS = `query ($chatbotId: ID!) { identityVerification(chatbotId: $chatbotId) { enabled createdAt } }`;
const hashOf = (userId: string, under = secret) => createHmac('sha256', under).update(userId).digest('hex');

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply: () => 'We open at nine.' });
  stack = await startStack({
    chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url, CHAT_RATE_PER_VISITOR: '1000', CHAT_RATE_PER_BOT: '1000' },
    billingEnv: { INITIAL_CREDIT: '5' },
  });
  owner = await registerOwner(stack, 'identity-owner');
  await makePro(stack, owner);
  bot = await chatbotWithKnowledge(stack, owner, 'Shop');
  uniqueId = (await api(stack.url, `/api/chatbot/${bot}`, { token: owner.token })).body.uniqueId;
  key = (await apiKeys(stack).create(owner, ['chat', 'conversations:read'])).secret;
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

describe('the identity secret in the dashboard', () => {
  it('is off, then made once and shown once, then on', async () => {
    expect((await gql(stack.url, STATUS, { chatbotId: bot }, owner.token)).body.data.identityVerification).toEqual({
      enabled: false,
      createdAt: null,
    });
    const made = await gql(stack.url, CREATE, { chatbotId: bot }, owner.token);
    secret = made.body.data.createIdentitySecret.secret;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const status = await gql(stack.url, STATUS, { chatbotId: bot }, owner.token);
    expect(status.body.data.identityVerification).toEqual({ enabled: true, createdAt: expect.any(String) });
    expect(JSON.stringify(status.body)).not.toContain(secret);
  });

  it("is refused for another workspace's chatbot", async () => {
    const stranger = await registerOwner(stack, 'identity-stranger');
    const res = await gql(stack.url, CREATE, { chatbotId: bot }, stranger.token);
    expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('a visitor with a userHash', () => {
  it('through the developer API: verified when it matches, the conversation says who', async () => {
    const chat = await v1(stack, `/chatbots/${bot}/chat`, key, {
      body: { message: 'When do you open?', visitor: { id: 'user-42', email: 'ada@example.com', userHash: hashOf('user-42') } },
    });
    expect(chat.status).toBe(200);
    const conversation = await v1(stack, `/chatbots/${bot}/conversations/${chat.body.conversationId}`, key);
    expect(conversation.body).toMatchObject({ visitorId: 'user-42', verifiedUserId: 'user-42', verifiedEmail: 'ada@example.com' });
  });

  it('through the developer API: a forged hash, or another user id, is unverified and still answered', async () => {
    for (const visitor of [
      { id: 'user-42', userHash: hashOf('user-42', 'forged-secret') },
      { id: 'user-43', userHash: hashOf('user-42') },
      { id: 'user-42', userHash: 'not hex at all' },
    ]) {
      const chat = await v1(stack, `/chatbots/${bot}/chat`, key, { body: { message: 'Hello?', visitor } });
      expect(chat.status).toBe(200);
      const conversation = await v1(stack, `/chatbots/${bot}/conversations/${chat.body.conversationId}`, key);
      expect(conversation.body).toMatchObject({ visitorId: visitor.id, verifiedUserId: null, verifiedEmail: null });
    }
  });

  it('through the public chat, as the widget sends it, and History shows it', async () => {
    const res = await api(stack.url, `/api/chatbot/public/${uniqueId}/chat`, {
      body: {
        message: 'When do you open?',
        sessionId: '',
        model: 'gpt-4o-mini',
        visitor: { id: 'user-7', name: 'Grace', email: 'grace@example.com', userHash: hashOf('user-7') },
      },
    });
    expect(res.status).toBe(200);
    const { body } = await gql(
      stack.url,
      `query ($chatbotId: ID!) { conversations(chatbotId: $chatbotId) { sessionId visitorName verifiedUserId verifiedEmail } }`,
      { chatbotId: bot },
      owner.token,
    );
    expect(body.data.conversations).toContainEqual({
      sessionId: res.body.sessionId,
      visitorName: 'Grace',
      verifiedUserId: 'user-7',
      verifiedEmail: 'grace@example.com',
    });
  });

  it('refuses a userHash that is not a string with 400, never 500', async () => {
    const res = await api(stack.url, `/api/chatbot/public/${uniqueId}/chat`, {
      body: { message: 'Hi', sessionId: '', model: 'gpt-4o-mini', visitor: { id: 'user-7', userHash: 42 } },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('visitor.userHash must be a string');
  });
});
