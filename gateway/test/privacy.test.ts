// A chatbot's privacy through the gateway (docs/product.md, Privacy): read and changed on GraphQL and
// REST, a refused pattern a clear 400 / BAD_USER_INPUT, and a visitor's public chat message reaching
// the fake model with placeholders while the visitor reads the details back, and the owner's export
// holding what the setting keeps (placeholders, or the words as typed with keepOriginal).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoReply, startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { api, gql, startStack, type Stack } from './stack.ts';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';

let stack: Stack;
let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ reply: echoReply });
  stack = await startStack({ chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url } });
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);
const PRIVACY = 'privacy { redactPersonalData keepOriginal patterns }';
const update = (owner: Owner, id: string, input: unknown) =>
  gql(
    stack.url,
    `mutation($id: ID!, $input: UpdateChatbotInput!) { updateChatbot(id: $id, input: $input) { ${PRIVACY} } }`,
    { id, input },
    owner.token,
  );

async function ownerWithChatbot() {
  const owner = await registerOwner(stack, 'privacy');
  const res = await call('/api/chatbot', { body: { name: 'Private helper' }, token: owner.token });
  expect(res.status).toBe(201);
  return { owner, chatbot: res.body as { _id: string; uniqueId: string } };
}

describe('privacy settings', () => {
  it('read off, change on GraphQL and REST, refuse an unsafe pattern clearly', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const read = await gql(stack.url, `query($id: ID!) { chatbot(id: $id) { ${PRIVACY} } }`, { id: chatbot._id }, owner.token);
    expect(read.body.data.chatbot.privacy).toEqual({ redactPersonalData: false, keepOriginal: false, patterns: [] });

    const on = await update(owner, chatbot._id, { privacy: { redactPersonalData: true, patterns: ['CUST-\\d{6}'] } });
    expect(on.body.data.updateChatbot.privacy).toEqual({ redactPersonalData: true, keepOriginal: false, patterns: ['CUST-\\d{6}'] });

    const refused = await update(owner, chatbot._id, { privacy: { patterns: ['(a+)+$'] } });
    expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(refused.body.errors[0].message).toMatch(/must not repeat a repetition/);

    const rest = await call(`/api/chatbot/${chatbot._id}`, {
      method: 'PUT',
      body: { privacy: { keepOriginal: true } },
      token: owner.token,
    });
    expect(rest.status).toBe(200);
    expect((rest.body as { privacy: unknown }).privacy).toEqual({
      redactPersonalData: true,
      keepOriginal: true,
      patterns: ['CUST-\\d{6}'],
    });

    for (const body of [{ privacy: 'on' }, { privacy: { patterns: 'x' } }, { privacy: { patterns: ['(unclosed'] } }]) {
      const bad = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body, token: owner.token });
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('sends the model placeholders and gives the visitor the details back', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    await update(owner, chatbot._id, { privacy: { redactPersonalData: true } });
    const message = 'Refund to DE89 3704 0044 0532 0130 00 please, mail jo@example.com';
    const res = await call(`/api/chatbot/public/${chatbot.uniqueId}/chat`, {
      body: { message, model: 'gpt-4o-mini' },
      headers: { 'x-forwarded-for': '198.51.100.77' },
    });
    expect(res.status).toBe(200);
    expect((res.body as { message: string }).message).toBe(`This is a test answer to: ${message}`);
    expect(fake.requests.at(-1)!.messages.at(-1)!.content).toBe('Refund to [IBAN_1] please, mail [EMAIL_1]');
  });

  it("exports the placeholders, or the visitor's words as typed when the owner keeps them", async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    await makePro(stack, owner);
    const kept = (await call('/api/chatbot', { body: { name: 'Keeps originals' }, token: owner.token })).body as {
      _id: string;
      uniqueId: string;
    };
    await update(owner, chatbot._id, { privacy: { redactPersonalData: true } });
    await update(owner, kept._id, { privacy: { redactPersonalData: true, keepOriginal: true } });
    const message = 'Call me on +44 20 7946 0958 or at ann@example.com';
    for (const bot of [chatbot, kept]) {
      const res = await call(`/api/chatbot/public/${bot.uniqueId}/chat`, {
        body: { message, model: 'gpt-4o-mini' },
        headers: { 'x-forwarded-for': '198.51.100.78' },
      });
      expect(res.status).toBe(200);
      expect(fake.requests.at(-1)!.messages.at(-1)!.content).toBe('Call me on [PHONE_1] or at [EMAIL_1]');
    }
    const exported = async (id: string) => {
      const res = await fetch(`${stack.url}/api/chatbot/${id}/conversations/export?format=jsonl`, {
        headers: { authorization: `Bearer ${owner.token}` },
      });
      expect(res.status).toBe(200);
      return res.text();
    };
    const redacted = await exported(chatbot._id);
    expect(redacted).toContain('Call me on [PHONE_1] or at [EMAIL_1]');
    expect(redacted).not.toContain('ann@example.com');
    expect(redacted).not.toContain('7946');
    const original = await exported(kept._id);
    expect(original).toContain(message);
    expect(original).not.toContain('[EMAIL_1]');
  });
});
