// Contract tests of the public chat (docs/product.md, Public chat and Messages) and of the owner's
// conversation history, through the gateway against the real auth, billing, chatbot and chat
// services, with a fake OpenAI-compatible model started here.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeTokenCount, startFakeOpenAI, type FakeOpenAI, type FakeOpenAIRequest } from '@parley/common/testing/fake-openai.ts';
import { api, gql, type Stack, startStack } from './stack.ts';
import { makePro, type Owner, pictureForm, PICTURE_URL, pngImage, postForm, registerOwner, UUID } from './chatbot-fixtures.ts';

let stack: Stack;
let fake: FakeOpenAI;

const RATE_PER_VISITOR = 5;
const MAX_MESSAGE_CHARS = 200;
// Short enough that a stream the fake drags out fails mid-way; the other answers take milliseconds.
const MODEL_TIMEOUT_MS = 3000;

const NOT_FOUND_OR_INACTIVE = { message: 'Chatbot not found or inactive' };
const UNAVAILABLE = { message: 'This chatbot is temporarily unavailable. Please try again later.' };
const ANSWER_FAILED = { message: 'The chatbot could not answer right now. Please try again.' };
const RATE_LIMITED = { message: 'You are sending messages too quickly. Please wait a minute and try again.' };
const PRO_ONLY = { message: 'Conversation history is available on the Pro plan.' };

const reply = (body: FakeOpenAIRequest) => {
  const last = [...body.messages].reverse().find((m) => m.role === 'user');
  return `Fake answer number one two three four five six seven to: ${last?.content ?? ''}`;
};

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply });
  stack = await startStack({
    chatEnv: {
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: fake.url,
      OPENAI_TIMEOUT_MS: String(MODEL_TIMEOUT_MS),
      CHAT_RATE_PER_VISITOR: String(RATE_PER_VISITOR),
      MAX_MESSAGE_CHARS: String(MAX_MESSAGE_CHARS),
    },
    gatewayEnv: { TRUST_PROXY: '1' },
  });
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});
afterEach(() => {
  fake.setBehaviour({ failWith: null, delayMs: 0, chunkDelayMs: 0, reply });
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);

// Each test's visitors get their own addresses, so the per-visitor limit never spills over.
let visitorCounter = 0;
const newVisitorIp = () => {
  visitorCounter++;
  return `198.51.${Math.floor(visitorCounter / 250)}.${(visitorCounter % 250) + 1}`;
};

interface ChatOptions {
  ip?: string;
  userAgent?: string;
  sessionId?: unknown;
  model?: unknown;
  stream?: boolean;
}

function chat(uniqueId: string, message: unknown, opts: ChatOptions = {}) {
  const body: Record<string, unknown> = { message };
  if (opts.sessionId !== undefined) body.sessionId = opts.sessionId;
  body.model = opts.model ?? 'gpt-4o-mini';
  const headers: Record<string, string> = { 'x-forwarded-for': opts.ip ?? newVisitorIp() };
  if (opts.userAgent) headers['user-agent'] = opts.userAgent;
  if (opts.stream) headers.accept = 'text/event-stream';
  return call(`/api/chatbot/public/${uniqueId}/chat`, { body, headers });
}

interface SseEvent {
  event: string;
  data: any;
}

function parseEvents(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length) ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice('data: '.length))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}

async function createChatbot(owner: Owner, name = 'Help Bot') {
  const res = await call('/api/chatbot', { body: { name }, token: owner.token });
  expect(res.status).toBe(201);
  return res.body as { _id: string; uniqueId: string; name: string };
}

async function ownerWithChatbot(opts: { pro?: boolean; name?: string } = {}) {
  const owner = await registerOwner(stack, opts.pro ? 'pro' : 'owner');
  if (opts.pro) await makePro(stack, owner);
  return { owner, chatbot: await createChatbot(owner, opts.name) };
}

async function query<T = any>(database: { databaseUrl: string }, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

async function setCredit(owner: Owner, balance: string) {
  const { schema } = stack.billingDatabase;
  // Reading the user makes sure billing has opened the account.
  expect((await call('/api/auth/current', { token: owner.token })).status).toBe(200);
  const client = new pg.Client({ connectionString: stack.billingDatabase.databaseUrl });
  await client.connect();
  try {
    const res = await client.query(`UPDATE "${schema}"."Account" SET "creditBalance" = $2 WHERE "userId" = $1`, [owner.userId, balance]);
    expect(res.rowCount).toBe(1);
  } finally {
    await client.end();
  }
}

const isoString = (value: string) => expect(new Date(value).toISOString()).toBe(value);

// What the public lookup shows (the welcome message, the suggested questions,
// the appearance and proof of work; widget-edge.test.ts has their cases; the lead form and handoff,
// leads.test.ts).
const PUBLIC_KEYS = ['appearance', 'handoff', 'leadForm', 'name', 'profilePicture', 'proofOfWork', 'suggestedQuestions', 'welcomeMessage'];
const DEFAULT_LOOK = {
  appearance: { primaryColor: null, position: 'right', launcherLabel: '', hideBranding: false },
  proofOfWork: false,
  leadForm: { name: 'off', email: 'off', phone: 'off', trigger: 'before_first_message', afterMessages: 2, consentText: '' },
  handoff: false,
};

describe('GET /api/chatbot/public/:uniqueId', () => {
  it('answers exactly { name, profilePicture, welcomeMessage, suggestedQuestions, appearance, proofOfWork, leadForm, handoff }, with null when there is no picture', async () => {
    const { chatbot } = await ownerWithChatbot({ name: 'Public Face' });
    const res = await call(`/api/chatbot/public/${chatbot.uniqueId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(PUBLIC_KEYS);
    expect(res.body).toEqual({ name: 'Public Face', profilePicture: null, welcomeMessage: '', suggestedQuestions: [], ...DEFAULT_LOOK });
  });

  it("carries the picture's URL once one is set, and still nothing else", async () => {
    const { owner, chatbot } = await ownerWithChatbot({ name: 'Pictured' });
    const upload = await postForm(stack, `/api/chatbot/${chatbot._id}/profile-picture`, pictureForm(pngImage()), { token: owner.token });
    expect(upload.status).toBe(200);
    const res = await call(`/api/chatbot/public/${chatbot.uniqueId}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(PUBLIC_KEYS);
    expect(res.body).toEqual({
      name: 'Pictured',
      profilePicture: upload.body.profilePicture,
      welcomeMessage: '',
      suggestedQuestions: [],
      ...DEFAULT_LOOK,
    });
    expect(res.body.profilePicture).toMatch(PICTURE_URL);
  });

  it('answers 404 for an unknown, malformed or inactive chatbot', async () => {
    const unknown = await call(`/api/chatbot/public/${'A'.repeat(22)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(NOT_FOUND_OR_INACTIVE);
    const malformed = await call(`/api/chatbot/public/${encodeURIComponent('not a valid id!')}`);
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual(NOT_FOUND_OR_INACTIVE);

    const { owner, chatbot } = await ownerWithChatbot();
    expect((await call(`/api/chatbot/public/${chatbot.uniqueId}`)).status).toBe(200);
    const off = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: { isActive: false }, token: owner.token });
    expect(off.status).toBe(200);
    const inactive = await call(`/api/chatbot/public/${chatbot.uniqueId}`);
    expect(inactive.status).toBe(404);
    expect(inactive.body).toEqual(NOT_FOUND_OR_INACTIVE);
    const before = fake.requests.length;
    const send = await chat(chatbot.uniqueId, 'Hello?');
    expect(send.status).toBe(404);
    expect(send.body).toEqual(NOT_FOUND_OR_INACTIVE);
    expect(fake.requests.length).toBe(before);
  });
});

describe('POST /api/chatbot/public/:uniqueId/chat (JSON)', () => {
  it("answers 200 { message, sessionId, sources, messageId } with the model's answer and a server-issued session id, kept from then on", async () => {
    const { chatbot } = await ownerWithChatbot();
    const before = fake.requests.length;
    // The page's own id is only a hint: the conversation gets an id the server issued, so no visitor can guess another's.
    const res = await chat(chatbot.uniqueId, '  What are your opening hours?  ', { sessionId: 'visitor-Session_01' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      message: 'Fake answer number one two three four five six seven to: What are your opening hours?',
      sessionId: expect.stringMatching(/^[A-Za-z0-9_-]{38}$/),
      // The chatbot has no knowledge: nothing to cite.
      sources: [],
      // The stored answer's id, for feedback.
      messageId: expect.stringMatching(/^[1-9]\d*$/),
      // Nothing cited: the knowledge could not answer; handoff is off, so no person is offered.
      unanswered: true,
      offerHandoff: false,
    });
    // One model call, with the trimmed message last.
    expect(fake.requests.length).toBe(before + 1);
    const sent = fake.requests[before]!;
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'What are your opening hours?' });
    // The issued id is the one kept: the next message continues the same conversation.
    const next = await chat(chatbot.uniqueId, 'And on Sundays?', { sessionId: res.body.sessionId });
    expect(next.status).toBe(200);
    expect(next.body.sessionId).toBe(res.body.sessionId);
    expect(fake.requests.at(-1)!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['with spaces', 'not a session'],
    ['too long', 'x'.repeat(65)],
    ['with punctuation', 'abc.def'],
    ['made up by the page', 'lk2j3h4g5f6d7'],
    ['shaped like an issued one but unsigned', 'A'.repeat(38)],
  ])('gives a new session id when the one sent is %s', async (_label, sessionId) => {
    const { chatbot } = await ownerWithChatbot();
    const res = await chat(chatbot.uniqueId, 'Hi', { sessionId });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['message', 'messageId', 'offerHandoff', 'sessionId', 'sources', 'unanswered']);
    expect(res.body.sessionId).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(res.body.sessionId).not.toBe(sessionId);
    // And a fresh one each time.
    const again = await chat(chatbot.uniqueId, 'Hi', { sessionId });
    expect(again.body.sessionId).not.toBe(res.body.sessionId);
  });

  it('accepts a missing model as the default one', async () => {
    const { chatbot } = await ownerWithChatbot();
    const res = await call(`/api/chatbot/public/${chatbot.uniqueId}/chat`, {
      body: { message: 'No model given', sessionId: 's1' },
      headers: { 'x-forwarded-for': newVisitorIp() },
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/to: No model given$/);
  });

  it.each([[''], ['   '], ['\n\t ']])(
    'refuses the empty message %j with 400 "Message is required" without calling the model',
    async (message) => {
      const { chatbot } = await ownerWithChatbot();
      const before = fake.requests.length;
      const res = await chat(chatbot.uniqueId, message);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Message is required' });
      const missing = await call(`/api/chatbot/public/${chatbot.uniqueId}/chat`, {
        body: {},
        headers: { 'x-forwarded-for': newVisitorIp() },
      });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ message: 'Message is required' });
      expect(fake.requests.length).toBe(before);
    },
  );

  it.each([[42], [true], [['Hi']], [{ text: 'Hi' }]])('refuses a message of the wrong JSON type (%j) with 400', async (message) => {
    const { chatbot } = await ownerWithChatbot();
    const res = await chat(chatbot.uniqueId, message);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'message must be a string' });
  });

  it('refuses an unknown model with 400, naming it', async () => {
    const { chatbot } = await ownerWithChatbot();
    const before = fake.requests.length;
    const res = await chat(chatbot.uniqueId, 'Hi', { model: 'gpt-5' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Unknown model: gpt-5' });
    expect(fake.requests.length).toBe(before);
  });

  it(`refuses a message over ${MAX_MESSAGE_CHARS} characters with 400, and takes one of exactly that length`, async () => {
    const { chatbot } = await ownerWithChatbot();
    const before = fake.requests.length;
    const long = await chat(chatbot.uniqueId, 'x'.repeat(MAX_MESSAGE_CHARS + 1));
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ message: `Message is too long (maximum ${MAX_MESSAGE_CHARS} characters)` });
    expect(fake.requests.length).toBe(before);
    const fits = await chat(chatbot.uniqueId, 'y'.repeat(MAX_MESSAGE_CHARS));
    expect(fits.status).toBe(200);
  });

  it(`limits a visitor to ${RATE_PER_VISITOR} messages a minute per chatbot (429), by the forwarded address`, async () => {
    const { chatbot } = await ownerWithChatbot();
    const ip = newVisitorIp();
    for (let i = 0; i < RATE_PER_VISITOR; i++) {
      const res = await chat(chatbot.uniqueId, `Message ${i}`, { ip });
      expect(res.status).toBe(200);
    }
    const before = fake.requests.length;
    const refused = await chat(chatbot.uniqueId, 'One too many', { ip });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(RATE_LIMITED);
    // Streamed too: refused before the first event, as JSON.
    const refusedStream = await chat(chatbot.uniqueId, 'One too many', { ip, stream: true });
    expect(refusedStream.status).toBe(429);
    expect(refusedStream.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refusedStream.body).toEqual(RATE_LIMITED);
    expect(fake.requests.length).toBe(before);
    // Another visitor of the same chatbot is not affected.
    expect((await chat(chatbot.uniqueId, 'Hello from elsewhere')).status).toBe(200);
  });

  it('answers 503 "temporarily unavailable" when the owner has no credit left, or too little to hold an answer, without calling the model', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    expect((await chat(chatbot.uniqueId, 'Hi while in credit')).status).toBe(200);
    for (const balance of ['0', '-0.0000000001']) {
      await setCredit(owner, balance);
      const before = fake.requests.length;
      const res = await chat(chatbot.uniqueId, 'Hi');
      expect(res.status).toBe(503);
      expect(res.body).toEqual(UNAVAILABLE);
      const streamed = await chat(chatbot.uniqueId, 'Hi', { stream: true });
      expect(streamed.status).toBe(503);
      expect(streamed.headers.get('content-type')).toMatch(/^application\/json/);
      expect(streamed.body).toEqual(UNAVAILABLE);
      expect(fake.requests.length).toBe(before);
    }
    // A positive balance too small to hold the answer's largest possible cost is refused too (the
    // credit hold, ADR 10: an answer is never given on credit the owner does not have)...
    await setCredit(owner, '0.0000000001');
    const before = fake.requests.length;
    expect((await chat(chatbot.uniqueId, 'Hi on a sliver of credit')).status).toBe(503);
    expect(fake.requests.length).toBe(before);
    // ...and enough for one answer is served again.
    await setCredit(owner, '0.01');
    expect((await chat(chatbot.uniqueId, 'Hi again')).status).toBe(200);
  });

  it('answers 503 "could not answer" when the model fails', async () => {
    const { chatbot } = await ownerWithChatbot();
    for (const failWith of [500, 429, 401]) {
      fake.setBehaviour({ failWith });
      const before = fake.requests.length;
      const res = await chat(chatbot.uniqueId, 'Are you there?');
      expect(res.status).toBe(503);
      expect(res.body).toEqual(ANSWER_FAILED);
      // No retry: a retry could be billed twice.
      expect(fake.requests.length).toBe(before + 1);
    }
    fake.setBehaviour({ failWith: null });
    expect((await chat(chatbot.uniqueId, 'And now?')).status).toBe(200);
  });
});

describe('POST /api/chatbot/public/:uniqueId/chat: a confirmation card answered', () => {
  const answer = (uniqueId: string, sessionId: string, confirm: unknown) =>
    call(`/api/chatbot/public/${uniqueId}/chat`, {
      body: { message: 'Confirm', sessionId, model: 'gpt-4o-mini', confirm },
      headers: { 'x-forwarded-for': newVisitorIp() },
    });

  it.each([
    ['not an object', 'yes', 'confirm must be an object'],
    ['without strings', { callId: 42, decision: 'confirm' }, 'confirm.callId and confirm.decision must be strings'],
    ['with an unknown decision', { callId: randomUUID(), decision: 'maybe' }, 'confirmDecision must be confirm or cancel'],
  ])('refuses a confirm %s with 400', async (_label, confirm, message) => {
    const { chatbot } = await ownerWithChatbot();
    const res = await answer(chatbot.uniqueId, '', confirm);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
  });

  it('refuses a call id that is not a pending call of this conversation with 400, before any model call', async () => {
    const { chatbot } = await ownerWithChatbot();
    const first = await chat(chatbot.uniqueId, 'Hi');
    const before = fake.requests.length;
    const res = await answer(chatbot.uniqueId, first.body.sessionId, { callId: randomUUID(), decision: 'confirm' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'This confirmation is no longer valid: ask again' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('POST /api/chatbot/public/:uniqueId/chat (event stream)', () => {
  it('streams several delta events whose concatenation is the done message', async () => {
    const { chatbot } = await ownerWithChatbot();
    const res = await fetch(`${stack.url}/api/chatbot/public/${chatbot.uniqueId}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': newVisitorIp() },
      body: JSON.stringify({ message: 'Tell me everything about your product', sessionId: 'stream-session', model: 'gpt-4o-mini' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toMatch(/no-cache/);
    const events = parseEvents(await res.text());
    const deltas = events.filter((e) => e.event === 'delta');
    expect(deltas.length).toBeGreaterThan(2);
    for (const d of deltas) expect(Object.keys(d.data)).toEqual(['delta']);
    expect(events.at(-1)!.event).toBe('done');
    expect(events.filter((e) => e.event !== 'delta').map((e) => e.event)).toEqual(['done']);
    const done = events.at(-1)!.data;
    expect(done).toEqual({
      message: 'Fake answer number one two three four five six seven to: Tell me everything about your product',
      sessionId: expect.stringMatching(/^[A-Za-z0-9_-]{38}$/),
      sources: [],
      messageId: expect.stringMatching(/^\d+$/),
      unanswered: true,
      offerHandoff: false,
    });
    expect(deltas.map((d) => d.data.delta).join('')).toBe(done.message);
  });

  it('refuses before the first event as a JSON error with its status', async () => {
    const { chatbot } = await ownerWithChatbot();
    const empty = await chat(chatbot.uniqueId, '  ', { stream: true });
    expect(empty.status).toBe(400);
    expect(empty.headers.get('content-type')).toMatch(/^application\/json/);
    expect(empty.body).toEqual({ message: 'Message is required' });
    const unknown = await chat('B'.repeat(22), 'Hi', { stream: true });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(NOT_FOUND_OR_INACTIVE);
  });

  it('answers a model failing before the first token as a JSON 503', async () => {
    const { chatbot } = await ownerWithChatbot();
    fake.setBehaviour({ failWith: 500 });
    const before = fake.requests.length;
    const res = await chat(chatbot.uniqueId, 'Are you there?', { stream: true });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(ANSWER_FAILED);
    expect(fake.requests.length).toBe(before + 1);
  });

  it('ends with an error event when the model stops answering mid-stream', async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    // Each chunk (three words) comes 400 ms after the last: the answer's deadline passes half-way.
    fake.setBehaviour({ chunkDelayMs: 400, reply: () => 'word '.repeat(60).trim() });
    const res = await chat(chatbot.uniqueId, 'Talk slowly', { stream: true, sessionId: 'slow-session' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseEvents(res.body as string);
    expect(events.filter((e) => e.event === 'delta').length).toBeGreaterThan(0);
    expect(events.map((e) => e.event)).not.toContain('done');
    expect(events.at(-1)).toEqual({ event: 'error', data: ANSWER_FAILED });
    // A failed answer is not stored.
    const list = await call(`/api/chatbot/${chatbot._id}/conversations`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });
  it('finishes, stores and bills an answer the visitor stopped reading half-way', async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    const full = Array.from({ length: 30 }, (_, i) => `part${i}`).join(' ');
    fake.setBehaviour({ chunkDelayMs: 60, reply: () => full });
    const leave = new AbortController();
    const res = await fetch(`${stack.url}/api/chatbot/public/${chatbot.uniqueId}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': newVisitorIp() },
      body: JSON.stringify({ message: 'Tell me a long story', sessionId: 'gone-session', model: 'gpt-4o-mini' }),
      signal: leave.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let received = '';
    while (!received.includes('event: delta')) {
      const { value, done } = await reader.read();
      if (done) break;
      received += new TextDecoder().decode(value);
    }
    expect(received).toContain('event: delta');
    expect(received).not.toContain('event: done');
    leave.abort();

    // The answer is stored whole once the model has finished...
    const deadline = Date.now() + 15_000;
    let list = await call(`/api/chatbot/${chatbot._id}/conversations`, { token: owner.token });
    while (list.body.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      list = await call(`/api/chatbot/${chatbot._id}/conversations`, { token: owner.token });
    }
    expect(list.body).toHaveLength(1);
    const detail = await call(`/api/chatbot/${chatbot._id}/conversations/${list.body[0]._id}`, { token: owner.token });
    expect(detail.body.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'Tell me a long story'],
      ['assistant', full],
    ]);
    // ...and billed, as the provider charged for it.
    const { schema } = stack.billingDatabase;
    const usage = async () =>
      query<{ completionTokens: number }>(
        stack.billingDatabase,
        `SELECT "completionTokens" FROM "${schema}"."UsageRecord" WHERE "userId" = $1`,
        [owner.userId],
      );
    let records = await usage();
    while (records.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      records = await usage();
    }
    expect(records).toEqual([{ completionTokens: fakeTokenCount(full) }]);
  });
});

const CONVERSATIONS = `query ($chatbotId: ID!) { conversations(chatbotId: $chatbotId) { id sessionId createdAt updatedAt userIp userAgent messageCount messages { role content timestamp } } }`;
const CONVERSATION = `query ($chatbotId: ID!, $id: ID!) { conversation(chatbotId: $chatbotId, id: $id) { id sessionId userIp userAgent messageCount messages { id role content authorName timestamp rating sources { entryId title url } model { id displayName provider } fallback } } }`;

describe('conversation history', () => {
  it('is refused to a free owner with 403, over REST and GraphQL', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    expect((await chat(chatbot.uniqueId, 'Hi', { sessionId: 'free-session' })).status).toBe(200);
    const list = await call(`/api/chatbot/${chatbot._id}/conversations`, { token: owner.token });
    expect(list.status).toBe(403);
    expect(list.body).toEqual(PRO_ONLY);
    const one = await call(`/api/chatbot/${chatbot._id}/conversations/${randomUUID()}`, { token: owner.token });
    expect(one.status).toBe(403);
    expect(one.body).toEqual(PRO_ONLY);

    const gList = await gql(stack.url, CONVERSATIONS, { chatbotId: chatbot._id }, owner.token);
    expect(gList.status).toBe(200);
    expect(gList.body.data).toBeNull();
    expect(gList.body.errors).toHaveLength(1);
    expect(gList.body.errors[0]).toMatchObject({ message: PRO_ONLY.message, extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
    const gOne = await gql(stack.url, CONVERSATION, { chatbotId: chatbot._id, id: randomUUID() }, owner.token);
    expect(gOne.body.data).toBeNull();
    expect(gOne.body.errors[0]).toMatchObject({ message: PRO_ONLY.message, extensions: { code: 'FORBIDDEN' } });
  });

  it('needs a signed-in owner', async () => {
    const { chatbot } = await ownerWithChatbot({ pro: true });
    const res = await call(`/api/chatbot/${chatbot._id}/conversations`);
    expect(res.status).toBe(401);
    const g = await gql(stack.url, CONVERSATIONS, { chatbotId: chatbot._id });
    expect(g.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it("lists a pro owner's conversations, most recent first, and shows one with its messages in order", async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    const text = 'We open at nine every weekday.';
    const added = await call(`/api/chatbot/${chatbot._id}/knowledge-base/text`, { body: { text, append: true }, token: owner.token });
    expect(added.status).toBe(200);
    // The first answer cites the one passage; the others cite nothing.
    fake.setBehaviour({ reply: (body) => (body.messages.at(-1)?.content === 'First question' ? 'We open at nine. [1]' : reply(body)) });
    const ipA = newVisitorIp();
    const ipB = newVisitorIp();
    const a1 = await chat(chatbot.uniqueId, 'First question', { sessionId: 'session-a', ip: ipA, userAgent: 'VisitorA/1.0 (Test)' });
    expect(a1.status).toBe(200);
    // As the page does: the next message carries the session id the server answered with.
    const sessionA = a1.body.sessionId as string;
    const a2 = await chat(chatbot.uniqueId, 'Second question', { sessionId: sessionA, ip: ipA, userAgent: 'VisitorA/1.0 (Test)' });
    expect(a2.status).toBe(200);
    const b1 = await chat(chatbot.uniqueId, 'Streamed question', {
      sessionId: 'session-b',
      ip: ipB,
      userAgent: 'VisitorB/2.0',
      stream: true,
    });
    expect(b1.status).toBe(200);
    const sessionB = parseEvents(b1.body as string).at(-1)!.data.sessionId as string;

    const list = await call(`/api/chatbot/${chatbot._id}/conversations`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    for (const c of list.body) {
      expect(Object.keys(c).sort()).toEqual([
        '_id',
        'channel',
        'createdAt',
        'messageCount',
        'messages',
        'sessionId',
        'updatedAt',
        'userAgent',
        'userIp',
        'verifiedEmail',
        'verifiedUserId',
        'visitorId',
        'visitorName',
      ]);
      expect(c._id).toMatch(UUID);
      isoString(c.createdAt);
      isoString(c.updatedAt);
      expect(Date.parse(c.updatedAt)).toBeGreaterThanOrEqual(Date.parse(c.createdAt));
      expect(c.messages).toEqual([]);
    }
    const [b, a] = list.body;
    expect(b).toMatchObject({ sessionId: sessionB, userIp: ipB, userAgent: 'VisitorB/2.0', messageCount: 2 });
    expect(a).toMatchObject({ sessionId: sessionA, userIp: ipA, userAgent: 'VisitorA/1.0 (Test)', messageCount: 4 });

    const detail = await call(`/api/chatbot/${chatbot._id}/conversations/${a._id}`, { token: owner.token });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ _id: a._id, sessionId: sessionA, userIp: ipA, userAgent: 'VisitorA/1.0 (Test)', messageCount: 4 });
    expect(detail.body.messages.map((m: any) => ({ role: m.role, content: m.content }))).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: a1.body.message },
      { role: 'user', content: 'Second question' },
      { role: 'assistant', content: a2.body.message },
    ]);
    // Each answer with what it cited, as the visitor's reply gave it.
    expect(detail.body.messages.map((m: any) => m.sources)).toEqual([[], a1.body.sources, [], a2.body.sources]);
    expect(a1.body.sources).toEqual([{ entryId: expect.any(String), title: expect.any(String) }]);
    for (const m of detail.body.messages) {
      expect(Object.keys(m).sort()).toEqual(['authorName', 'content', 'fallback', 'id', 'model', 'rating', 'role', 'sources', 'timestamp']);
      expect(m.rating).toBeNull();
      expect(m.authorName).toBeNull();
      isoString(m.timestamp);
    }
    const times = detail.body.messages.map((m: any) => Date.parse(m.timestamp));
    expect([...times].sort((x, y) => x - y)).toEqual(times);

    // The streamed answer was stored whole.
    const streamed = await call(`/api/chatbot/${chatbot._id}/conversations/${b._id}`, { token: owner.token });
    const done = parseEvents(b1.body as string).at(-1)!;
    expect(done.event).toBe('done');
    expect(streamed.body.messages.map((m: any) => m.content)).toEqual(['Streamed question', done.data.message]);

    // GraphQL says the same.
    const gList = await gql(stack.url, CONVERSATIONS, { chatbotId: chatbot._id }, owner.token);
    expect(gList.body.errors).toBeUndefined();
    expect(gList.body.data.conversations.map((c: any) => [c.id, c.sessionId, c.userIp, c.messageCount])).toEqual([
      [b._id, sessionB, ipB, 2],
      [a._id, sessionA, ipA, 4],
    ]);
    const gOne = await gql(stack.url, CONVERSATION, { chatbotId: chatbot._id, id: a._id }, owner.token);
    expect(gOne.body.errors).toBeUndefined();
    // The same messages; a source without an address has url null there, absent over REST.
    expect(gOne.body.data.conversation.messages).toEqual(
      detail.body.messages.map((m: any) => ({ ...m, sources: m.sources.map((s: any) => ({ url: null, ...s })) })),
    );
  });

  it("answers 404 for another owner's chatbot and for an unknown conversation", async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    expect((await chat(chatbot.uniqueId, 'Hi', { sessionId: 'private-session' })).status).toBe(200);
    const mine = await call(`/api/chatbot/${chatbot._id}/conversations`, { token: owner.token });
    expect(mine.status).toBe(200);
    expect(mine.body).toHaveLength(1);
    const conversationId = mine.body[0]._id;

    const other = await registerOwner(stack, 'other');
    await makePro(stack, other);
    for (const path of [`/api/chatbot/${chatbot._id}/conversations`, `/api/chatbot/${chatbot._id}/conversations/${conversationId}`]) {
      const res = await call(path, { token: other.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Chatbot not found' });
    }
    const g = await gql(stack.url, CONVERSATION, { chatbotId: chatbot._id, id: conversationId }, other.token);
    expect(g.body.errors[0]).toMatchObject({ message: 'Chatbot not found', extensions: { code: 'NOT_FOUND' } });
    // The other owner's own chatbot does not open this conversation either.
    const theirs = await createChatbot(other, 'Theirs');
    const cross = await call(`/api/chatbot/${theirs._id}/conversations/${conversationId}`, { token: other.token });
    expect(cross.status).toBe(404);
    expect(cross.body).toEqual({ message: 'Conversation not found' });

    for (const id of [randomUUID(), 'not-a-uuid']) {
      const res = await call(`/api/chatbot/${chatbot._id}/conversations/${id}`, { token: owner.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Conversation not found' });
    }
    const unknownBot = await call(`/api/chatbot/${randomUUID()}/conversations`, { token: owner.token });
    expect(unknownBot.status).toBe(404);
    expect(unknownBot.body).toEqual({ message: 'Chatbot not found' });
  });

  it("removes a deleted chatbot's conversations and their messages", async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    // A second chatbot of the same owner whose conversations must stay.
    const kept = await createChatbot(owner, 'Kept');
    const sessions: string[] = [];
    for (const [bot, session] of [
      [chatbot, 's1'],
      [chatbot, 's2'],
      [kept, 's1'],
    ] as const) {
      const res = await chat(bot.uniqueId, 'Hello', { sessionId: session });
      expect(res.status).toBe(200);
      sessions.push(res.body.sessionId);
    }
    const { schema } = stack.chatDatabase;
    const count = async (chatbotId: string) => {
      const [row] = await query<{ conversations: number; messages: number }>(
        stack.chatDatabase,
        `SELECT (SELECT count(*)::int FROM "${schema}"."Conversation" WHERE "chatbotId" = $1) AS conversations,
                (SELECT count(*)::int FROM "${schema}"."Message" m JOIN "${schema}"."Conversation" c ON c.id = m."conversationId" WHERE c."chatbotId" = $1) AS messages`,
        [chatbotId],
      );
      return row!;
    };
    expect(await count(chatbot._id)).toEqual({ conversations: 2, messages: 4 });
    const totalMessages = async () =>
      (await query<{ n: number }>(stack.chatDatabase, `SELECT count(*)::int AS n FROM "${schema}"."Message"`))[0]!.n;
    const messagesBefore = await totalMessages();

    expect((await call(`/api/chatbot/${chatbot._id}`, { method: 'DELETE', token: owner.token })).status).toBe(200);
    // ChatbotDeleted is consumed by the chat service's worker, asynchronously.
    const deadline = Date.now() + 15_000;
    while ((await count(chatbot._id)).conversations > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await count(chatbot._id)).toEqual({ conversations: 0, messages: 0 });
    // Its messages went with them (the cascade), and nothing else did.
    expect(await totalMessages()).toBe(messagesBefore - 4);
    expect(await count(kept._id)).toEqual({ conversations: 1, messages: 2 });
    const list = await call(`/api/chatbot/${kept._id}/conversations`, { token: owner.token });
    expect(list.body.map((c: any) => c.sessionId)).toEqual([sessions[2]]);
    // And the deleted chatbot's history is no longer reachable.
    const gone = await call(`/api/chatbot/${chatbot._id}/conversations`, { token: owner.token });
    expect(gone.status).toBe(404);
  });
});
