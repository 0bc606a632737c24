// The developer API's answer to a confirmation (ADR 54, ADR 60): a chatbot whose MCP tool the owner
// marked "Visitor confirms first" (a local server built with the official SDK's server, loopback
// allowed by the chatbot service's OUTBOUND_ALLOW) answers POST /api/v1/chatbots/{id}/chat with the
// question and `confirmation`; the next request's `confirm { callId, decision }` runs the stored call
// once, or tells the bot it was declined; a wrong one is a clear 400; the OpenAPI names both.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { startFakeMcpServer, type FakeMcpServer } from '@parley/common/testing/fake-mcp-server.ts';
import { apiKeys, v1 } from './api-v1-fixtures.ts';
import { registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, startStack, type Stack } from './stack.ts';

let stack: Stack;
let fake: FakeOpenAI;
let mcp: FakeMcpServer;
let owner: Owner;
let bot: string;
let key: string;

const INVALID = 'This confirmation is no longer valid: ask again';
/** The model asks to cancel the order the user names, and answers from a tool result once it has one. */
const cancelling = (body: { messages: { content: string }[] }) => {
  if (body.messages.some((m) => m.content.startsWith('<tool_result'))) return [];
  const order = /order #?(\d+)/i.exec(body.messages.at(-1)!.content);
  return order ? [{ name: 'shop_cancel_order', arguments: { order_id: order[1] } }] : [];
};

beforeAll(async () => {
  mcp = await startFakeMcpServer();
  fake = await startFakeOpenAI({ reply: (body) => `Done: ${body.messages.at(-1)!.content}` });
  stack = await startStack({
    chatbotEnv: { OUTBOUND_ALLOW: '127.0.0.1' },
    chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url, CHAT_RATE_PER_VISITOR: '1000', CHAT_RATE_PER_BOT: '1000' },
    billingEnv: { INITIAL_CREDIT: '5' },
  });
  owner = await registerOwner(stack, 'v1-confirm');
  bot = (await api(stack.url, '/api/chatbot', { body: { name: 'Shop' }, token: owner.token })).body._id;
  const server = await api(stack.url, `/api/chatbot/${bot}/mcp-servers`, { body: { name: 'shop', url: mcp.url }, token: owner.token });
  expect(server.status).toBe(201);
  const picked = await api(stack.url, `/api/chatbot/${bot}/mcp-servers/${server.body.id}/tools`, {
    method: 'PUT',
    body: { tools: [{ name: 'cancel_order', confirm: true }] },
    token: owner.token,
  });
  expect(picked.status).toBe(200);
  key = (await apiKeys(stack).create(owner, ['chat'])).secret;
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await fake?.close();
  await mcp?.close();
});

const chat = (body: Record<string, unknown>) => v1(stack, `/chatbots/${bot}/chat`, key, { body });
const cancelCalls = () => mcp.calls.filter((c) => c.name === 'cancel_order').length;

describe('POST /api/v1/chatbots/{id}/chat with a confirmation', () => {
  it('answers with the question and confirmation, runs the call once on confirm, and refuses the other decision after', async () => {
    fake.setBehaviour({ toolCalls: cancelling });
    const before = cancelCalls();
    const asked = await chat({ message: 'Please cancel order #1042' });
    expect(asked.status).toBe(200);
    expect(asked.body.confirmation).toEqual({
      callId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      actionName: 'shop_cancel_order',
      question: 'Cancel order (order id: 1042)?',
      expiresAt: expect.any(String),
    });
    expect(asked.body.message.endsWith('Cancel order (order id: 1042)?')).toBe(true);
    expect(cancelCalls()).toBe(before);
    const confirm = {
      message: 'Confirm',
      conversationId: asked.body.conversationId,
      confirm: { callId: asked.body.confirmation.callId, decision: 'confirm' },
    };
    const done = await chat(confirm);
    expect(done.status).toBe(200);
    expect(done.body.message).toContain('Order 1042 cancelled');
    expect(done.body).not.toHaveProperty('confirmation');
    // A retry of a Confirm whose answer was lost, and two at once: nothing runs again.
    expect((await chat(confirm)).status).toBe(200);
    await Promise.all([chat(confirm), chat(confirm)]);
    expect(cancelCalls() - before).toBe(1);
    const cancel = await chat({ ...confirm, confirm: { ...confirm.confirm, decision: 'cancel' } });
    expect(cancel.status).toBe(400);
    expect(cancel.body.error).toEqual({ code: 'invalid_request', message: INVALID });
  });

  it('a cancel tells the bot the user declined and runs nothing; the stream carries confirmation in done', async () => {
    fake.setBehaviour({ toolCalls: cancelling });
    const before = cancelCalls();
    const res = await fetch(`${stack.url}/api/v1/chatbots/${bot}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Cancel order 77', stream: true }),
    });
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(block)![1]) }));
    const done = events.find((e) => e.event === 'done')!.data;
    expect(done.confirmation).toMatchObject({ actionName: 'shop_cancel_order', question: 'Cancel order (order id: 77)?' });
    fake.reset();
    fake.setBehaviour({ toolCalls: () => [] });
    const declined = await chat({
      message: 'Cancel',
      conversationId: done.conversationId,
      confirm: { callId: done.confirmation.callId, decision: 'cancel' },
    });
    expect(declined.status).toBe(200);
    expect(fake.requests[0].messages.at(-1)!.content).toBe(
      '<tool_result name="shop_cancel_order" status="declined">\nNot run: the visitor declined\n</tool_result>',
    );
    const late = await chat({
      message: 'Confirm',
      conversationId: done.conversationId,
      confirm: { callId: done.confirmation.callId, decision: 'confirm' },
    });
    expect(late.status).toBe(400);
    expect(cancelCalls()).toBe(before);
  });

  it.each([
    ['an unknown call id', { callId: randomUUID(), decision: 'confirm' }, INVALID],
    ['a decision other than the two', { callId: randomUUID(), decision: 'maybe' }, /^confirm\.decision: /],
    ['no call id', { decision: 'confirm' }, /^confirm\.callId: /],
    ['not an object', 'yes', /^confirm: /],
  ])('refuses %s with 400 before any model call', async (_label, confirm, message) => {
    fake.reset();
    const first = await chat({ message: 'Hello' });
    const before = fake.requests.length;
    const res = await chat({ message: 'Confirm', conversationId: first.body.conversationId, confirm });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toMatch(message);
    expect(fake.requests.length).toBe(before);
  });

  it('names confirm and confirmation in the OpenAPI description', async () => {
    const doc = (await api(stack.url, '/api/v1/openapi.json')).body;
    expect(doc.components.schemas.ChatRequest.properties.confirm).toBeDefined();
    expect(doc.components.schemas.ChatConfirm.properties.decision.enum).toEqual(['confirm', 'cancel']);
    expect(doc.components.schemas.ChatReply.properties.confirmation).toBeDefined();
    expect(doc.components.schemas.ChatReply.required).not.toContain('confirmation');
  });
});
