// Contract tests of the public chat's sources, welcome message and suggested questions through the gateway, against the real services and
// a fake OpenAI-compatible model started here: the public lookup's welcome message and suggested
// questions, and the sources of an answer in the JSON reply and the streamed done event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIRequest } from '@parley/common/testing/fake-openai.ts';
import { api, startStack, type Stack } from '../../../../test/stack.ts';
import { registerOwner, type Owner } from '../../../../test/chatbot-fixtures.ts';

let stack: Stack;
let fake: FakeOpenAI;

/** The number the prompt gives the passage titled so, as `[n] title` (build-prompt.ts). */
function passageNumber(body: FakeOpenAIRequest, title: string): number | undefined {
  const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
  const line = system.split('\n').find((l) => new RegExp(`^\\[\\d+\\] ${title}`).test(l));
  return line ? Number(/^\[(\d+)\]/.exec(line)![1]) : undefined;
}

// Cites the opening hours entry, then the shipping one, by the numbers the prompt gave them; an
// "uncited" question gets an answer that tags nothing.
const reply = (body: FakeOpenAIRequest) => {
  const question = body.messages.at(-1)?.content ?? '';
  if (question.includes('uncited')) return 'I can only say hello.';
  const hours = passageNumber(body, 'Opening hours');
  const shipping = passageNumber(body, 'Shipping');
  return `We open at nine [${hours}]. Shipping is free [${shipping}].`;
};

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply });
  stack = await startStack({ chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url } });
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);

let visitor = 0;
function chat(uniqueId: string, message: string, stream = false) {
  visitor++;
  const headers: Record<string, string> = { 'x-forwarded-for': `203.0.113.${visitor}` };
  if (stream) headers.accept = 'text/event-stream';
  return fetch(`${stack.url}/api/chatbot/public/${uniqueId}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ message, model: 'gpt-4o-mini' }),
  });
}

function doneEvent(text: string): any {
  const block = text.split('\n\n').find((b) => b.startsWith('event: done'));
  return block && JSON.parse(block.slice(block.indexOf('data: ') + 'data: '.length));
}

async function ownerWithChatbot(): Promise<{ owner: Owner; chatbot: { _id: string; uniqueId: string } }> {
  const owner = await registerOwner(stack, 'public');
  const res = await call('/api/chatbot', { body: { name: 'Shop Bot' }, token: owner.token });
  expect(res.status).toBe(201);
  return { owner, chatbot: res.body };
}

describe('GET /api/chatbot/public/:uniqueId', () => {
  it('answers { name, profilePicture, welcomeMessage, suggestedQuestions }: empty until the owner sets them', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const before = await call(`/api/chatbot/public/${chatbot.uniqueId}`);
    expect(before.status).toBe(200);
    // The appearance, proof of work, lead form and handoff, at their defaults (widget-edge.test.ts and leads.test.ts have their cases).
    const look = {
      appearance: { primaryColor: null, position: 'right', launcherLabel: '', hideBranding: false },
      proofOfWork: false,
      leadForm: { name: 'off', email: 'off', phone: 'off', trigger: 'before_first_message', afterMessages: 2, consentText: '' },
      handoff: false,
    };
    expect(before.body).toEqual({ name: 'Shop Bot', profilePicture: null, welcomeMessage: '', suggestedQuestions: [], ...look });

    const voice = { welcomeMessage: 'Hello! How can I help?', suggestedQuestions: ['When do you open?', 'Is shipping free?'] };
    const put = await call(`/api/chatbot/${chatbot._id}`, {
      method: 'PUT',
      body: { ...voice, instructions: 'Secret guidance' },
      token: owner.token,
    });
    expect(put.status).toBe(200);
    const after = await call(`/api/chatbot/public/${chatbot.uniqueId}`);
    // The owner's instructions are never shown to visitors.
    expect(after.body).toEqual({ name: 'Shop Bot', profilePicture: null, ...voice, ...look });
  });
});

describe('sources of a public answer', () => {
  async function chatbotWithKnowledge() {
    const { owner, chatbot } = await ownerWithChatbot();
    const add = (title: string, text: string) =>
      call(`/api/chatbot/${chatbot._id}/knowledge-base/text`, { body: { text: `${title}\n${text}` }, token: owner.token });
    const shipping = await add('Shipping', 'Shipping is free on every order.');
    const hours = await add('Opening hours', 'We open at nine in the morning.');
    const [shippingEntry, hoursEntry] = hours.body.knowledgeBase.textEntries;
    expect(shipping.status).toBe(200);
    return { owner, chatbot, shippingEntry, hoursEntry };
  }

  it('JSON: { message, sessionId, sources } with the markers renumbered in citing order, url only when there is one', async () => {
    const { chatbot, shippingEntry, hoursEntry } = await chatbotWithKnowledge();
    const res = await chat(chatbot.uniqueId, 'When do you open and how much is shipping?');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['message', 'messageId', 'offerHandoff', 'sessionId', 'sources', 'unanswered']);
    expect(body.message).toBe('We open at nine [1]. Shipping is free [2].');
    expect(body.sources).toEqual([
      { entryId: hoursEntry._id, title: hoursEntry.title },
      { entryId: shippingEntry._id, title: shippingEntry.title },
    ]);
  });

  it('an answer that cites nothing has sources []', async () => {
    const { chatbot } = await chatbotWithKnowledge();
    const body = await (await chat(chatbot.uniqueId, 'Say something uncited')).json();
    // Nothing cited: the knowledge could not answer (handoff is off, so no person is offered).
    expect(body).toEqual({
      message: 'I can only say hello.',
      sessionId: expect.any(String),
      sources: [],
      messageId: expect.any(String),
      unanswered: true,
      offerHandoff: false,
    });
  });

  it('the event stream ends with a done event carrying the same message and sources', async () => {
    const { chatbot, shippingEntry, hoursEntry } = await chatbotWithKnowledge();
    const res = await chat(chatbot.uniqueId, 'When do you open and how much is shipping?', true);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const done = doneEvent(await res.text());
    expect(done).toEqual({
      message: 'We open at nine [1]. Shipping is free [2].',
      sessionId: expect.any(String),
      sources: [
        { entryId: hoursEntry._id, title: hoursEntry.title },
        { entryId: shippingEntry._id, title: shippingEntry.title },
      ],
      messageId: expect.any(String),
      unanswered: false,
      offerHandoff: false,
    });
  });

  it("a Q&A pair's question is answered with the owner's answer, citing the pair, without calling the model", async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const qa = await call(`/api/chatbot/${chatbot._id}/knowledge-base/qa`, {
      body: { question: 'What are your opening hours?', answer: 'Nine to five, Monday to Friday.' },
      token: owner.token,
    });
    expect(qa.status).toBe(201);
    const before = fake.requests.length;
    const body = await (await chat(chatbot.uniqueId, 'what are your opening hours')).json();
    expect(body).toEqual({
      message: 'Nine to five, Monday to Friday.',
      sessionId: expect.any(String),
      sources: [{ entryId: qa.body.entry._id, title: 'What are your opening hours?' }],
      messageId: expect.any(String),
      unanswered: false,
      offerHandoff: false,
    });
    expect(fake.requests.length).toBe(before);
    const streamed = doneEvent(await (await chat(chatbot.uniqueId, 'What are your opening hours?', true)).text());
    expect(streamed.sources).toEqual(body.sources);
  });
});
