// Contract tests of the visitor's side of handoff (docs/adr/0034-humans-in-the-loop.md, the path
// comment of gateway/src/features/public-chat/rest.ts): asking for a person, the chat answer while a person
// is involved, and the conversation's live stream, through the gateway against the real services.
// The agent's side is the chat service's RPCs, called here as the gateway would call them.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { createRedis } from '@parley/common/redis.ts';
import { registry } from '@parley/common/metrics.ts';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { createLogger } from '@parley/common/logger.ts';
import { serveApp } from '@parley/common/testing/serve.ts';
import { createGateway } from '../src/http/app.ts';
import { readGatewayConfig } from '../src/config.ts';
import { api, startStack, TEST_SERVICE_SECRET, type Stack } from './stack.ts';

let stack: Stack;
let chat: ReturnType<typeof createServiceClient<typeof ChatService>>;

beforeAll(async () => {
  // A short ping, so the test sees one without waiting 15 s.
  stack = await startStack({ gatewayEnv: { SSE_PING_MS: '200' } });
  chat = createServiceClient(ChatService, stack.chatUrl, {
    credentials: { caller: 'gateway', secret: TEST_SERVICE_SECRET },
    role: 'owner',
  });
});
// A stream left open (a failed test) would hold the stack's close.
const openStreams: Array<() => void> = [];
afterEach(() => {
  for (const close of openStreams.splice(0)) close();
});
afterAll(async () => {
  await stack?.close();
});

let visitorCounter = 0;
const newVisitorIp = () => `203.0.113.${++visitorCounter}`;

async function sql(database: { databaseUrl: string; schema: string }, text: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  try {
    return (await client.query(text.replaceAll('$schema', `"${database.schema}"`), params)).rows;
  } finally {
    await client.end();
  }
}

/** A pro owner's chatbot with handoff on (set before anything reads the chatbot, so nothing has it cached). */
async function handoffChatbot(opts: { handoff?: boolean } = {}): Promise<{ owner: Owner; uniqueId: string; id: string }> {
  const owner = await registerOwner(stack, 'handoff');
  await makePro(stack, owner);
  const created = await api(stack.url, '/api/chatbot', { body: { name: 'Desk Bot' }, token: owner.token });
  expect(created.status).toBe(201);
  await sql(stack.chatbotDatabase, `UPDATE $schema."Chatbot" SET "handoffEnabled" = $2 WHERE id = $1`, [
    created.body._id,
    opts.handoff ?? true,
  ]);
  return { owner, uniqueId: created.body.uniqueId, id: created.body._id };
}

const base = (uniqueId: string) => `/api/chatbot/public/${uniqueId}`;

async function say(uniqueId: string, message: string, sessionId = '', ip = newVisitorIp()) {
  const res = await api(stack.url, `${base(uniqueId)}/chat`, {
    body: { message, sessionId, model: 'gpt-4o-mini' },
    headers: { 'x-forwarded-for': ip },
  });
  expect(res.status).toBe(200);
  return res.body;
}

interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

/** An open events stream, read event by event (comments counted as pings). */
async function openEvents(url: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(stack.url + url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  openStreams.push(() => abort.abort());
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let pings = 0;
  const queue: SseEvent[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) {
            pings++;
            continue;
          }
          const field = (name: string) =>
            block
              .split('\n')
              .find((l) => l.startsWith(`${name}: `))
              ?.slice(name.length + 2);
          queue.push({ event: field('event') ?? 'message', id: field('id'), data: JSON.parse(field('data') ?? 'null') });
        }
        wake?.();
      }
    } catch {
      // aborted
    }
    ended = true;
    wake?.();
  })();
  return {
    status: res.status,
    headers: res.headers,
    get pings() {
      return pings;
    },
    get ended() {
      return ended;
    },
    /** The next event (waits for it). */
    async next(): Promise<SseEvent> {
      while (queue.length === 0) {
        if (ended) throw new Error('stream ended');
        await new Promise<void>((resolve) => (wake = resolve));
      }
      return queue.shift()!;
    },
    /** Waits until `check` holds. */
    async until(check: () => boolean) {
      while (!check()) {
        if (ended) throw new Error('stream ended');
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    close: () => abort.abort(),
  };
}

async function conversationId(sessionId: string): Promise<string> {
  const rows = await sql(stack.chatDatabase, `SELECT id FROM $schema."Conversation" WHERE "sessionId" = $1`, [sessionId]);
  expect(rows).toHaveLength(1);
  return rows[0].id as string;
}

const openStreamsGauge = async () => (await registry.getSingleMetric('parley_gateway_sse_conversations_open')!.get()).values[0]?.value ?? 0;

describe('asking for a person', () => {
  it('refuses a call without a session id, or with one that is not a string', async () => {
    const { uniqueId } = await handoffChatbot();
    const missing = await api(stack.url, `${base(uniqueId)}/handoff`, { body: {} });
    expect(missing).toMatchObject({ status: 400, body: { message: 'sessionId is required' } });
    const wrong = await api(stack.url, `${base(uniqueId)}/handoff`, { body: { sessionId: 12 } });
    expect(wrong).toMatchObject({ status: 400, body: { message: 'sessionId must be a string' } });
  });

  it('moves the conversation to waiting, says so on every later answer, and asking again changes nothing', async () => {
    const { uniqueId } = await handoffChatbot();
    const first = await say(uniqueId, 'Hello there');
    expect(first).toMatchObject({ offerHandoff: expect.any(Boolean), unanswered: expect.any(Boolean) });
    expect(first.message).not.toBe('');
    expect(first).not.toHaveProperty('handoff');

    const asked = await api(stack.url, `${base(uniqueId)}/handoff`, { body: { sessionId: first.sessionId } });
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ status: 'waiting', agentName: null, waitingSince: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const again = await api(stack.url, `${base(uniqueId)}/handoff`, { body: { sessionId: first.sessionId } });
    expect(again.body).toEqual(asked.body);

    // The bot stays silent: the message is stored for the agent, the answer says who has it.
    const later = await say(uniqueId, 'Anyone there?', first.sessionId);
    expect(later).toMatchObject({ message: '', messageId: '', sessionId: first.sessionId, handoff: asked.body });
    // The streamed answer's done event says the same.
    const streamed = await fetch(`${stack.url}${base(uniqueId)}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': newVisitorIp() },
      body: JSON.stringify({ message: 'Still there?', sessionId: first.sessionId, model: 'gpt-4o-mini' }),
    });
    const text = await streamed.text();
    const done = text.split('\n\n').find((block) => block.startsWith('event: done'));
    expect(JSON.parse(done!.split('\ndata: ')[1])).toMatchObject({ message: '', handoff: { status: 'waiting' } });
  });

  it('is refused when the chatbot has handoff off, and for a session the chat service did not issue', async () => {
    const off = await handoffChatbot({ handoff: false });
    const { sessionId } = await say(off.uniqueId, 'Hello');
    const refused = await api(stack.url, `${base(off.uniqueId)}/handoff`, { body: { sessionId } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toEqual(expect.any(String));

    const on = await handoffChatbot();
    const forged = await api(stack.url, `${base(on.uniqueId)}/handoff`, { body: { sessionId: 'forgedsession' } });
    expect(forged.status).toBe(404);
    // Another chatbot's session is not this one's.
    const elsewhere = await api(stack.url, `${base(on.uniqueId)}/handoff`, { body: { sessionId } });
    expect(elsewhere.status).toBe(404);
  });

  it('answers host pages on any origin (CORS), refusals included', async () => {
    const { uniqueId } = await handoffChatbot();
    for (const path of ['handoff', 'events']) {
      const preflight = await fetch(`${stack.url}${base(uniqueId)}/${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://shop.example', 'access-control-request-method': path === 'handoff' ? 'POST' : 'GET' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    }
    const refused = await api(stack.url, `${base(uniqueId)}/events`, { headers: { origin: 'https://shop.example' } });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('the conversation stream', () => {
  it('refuses a missing or repeated session id and an `after` or Last-Event-ID that is not a message id', async () => {
    const { uniqueId } = await handoffChatbot();
    const events = `${base(uniqueId)}/events`;
    expect(await api(stack.url, events)).toMatchObject({ status: 400, body: { message: 'sessionId is required' } });
    expect((await api(stack.url, `${events}?sessionId=a&sessionId=b`)).status).toBe(400);
    expect(await api(stack.url, `${events}?sessionId=abc&after=x1`)).toMatchObject({
      status: 400,
      body: { message: 'after must be a message id' },
    });
    expect((await api(stack.url, `${events}?sessionId=abc&after=1&after=2`)).status).toBe(400);
    expect((await api(stack.url, `${events}?sessionId=abc`, { headers: { 'last-event-id': '-5' } })).status).toBe(400);
  });

  it('is refused for a session the chat service did not issue, as JSON before any event', async () => {
    const { uniqueId } = await handoffChatbot();
    const res = await api(stack.url, `${base(uniqueId)}/events?sessionId=forgedsession`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
  });

  it("relays the state and an agent's reply live, replays after a Last-Event-ID, pings, and lets go when the visitor leaves", async () => {
    const { owner, uniqueId } = await handoffChatbot();
    const { sessionId } = await say(uniqueId, 'I need help with my order');
    expect((await api(stack.url, `${base(uniqueId)}/handoff`, { body: { sessionId } })).status).toBe(200);
    const conversation = await conversationId(sessionId);

    const stream = await openEvents(`${base(uniqueId)}/events?sessionId=${sessionId}`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // The state first, then the catch-up: the visitor's and the bot's messages so far.
    expect(await stream.next()).toMatchObject({ event: 'state', data: { status: 'waiting', agentName: null, timedOut: false } });
    const caughtUp = [await stream.next(), await stream.next()];
    expect(caughtUp.map((e) => [e.event, e.data.role])).toEqual([
      ['message', 'user'],
      ['message', 'assistant'],
    ]);
    for (const e of caughtUp) expect(e.id).toBe(e.data.id);

    const agent = { id: owner.userId, name: 'Ada Agent' };
    const replied = await chat.replyToConversation({
      ownerId: owner.userId,
      conversationId: conversation,
      agent,
      content: 'Hi, I am Ada. Let me look.',
      clientMessageId: crypto.randomUUID(),
    });
    // The first reply claims the conversation: the state and the message arrive, in either order.
    const live = [await stream.next(), await stream.next()];
    const message = live.find((e) => e.event === 'message')!;
    expect(message).toMatchObject({
      id: replied.message!.id,
      data: { id: replied.message!.id, role: 'agent', content: 'Hi, I am Ada. Let me look.', authorName: 'Ada Agent', sources: [] },
    });
    expect(message.data.createdAt).toMatch(/^\d{4}-/);
    expect(live.find((e) => e.event === 'state')!.data).toMatchObject({ status: 'human', agentName: 'Ada Agent' });

    // The visitor's answer now says who answers; the stream carries the visitor's message too.
    const said = await say(uniqueId, 'Thanks!', sessionId);
    expect(said.handoff).toMatchObject({ status: 'human', agentName: 'Ada Agent' });
    expect(await stream.next()).toMatchObject({ event: 'message', data: { role: 'user', content: 'Thanks!' } });

    await stream.until(() => stream.pings > 0);
    stream.close();

    // A reconnection from the agent's reply on gets only what came after it.
    const again = await openEvents(`${base(uniqueId)}/events?sessionId=${sessionId}&after=1`, { 'last-event-id': replied.message!.id });
    expect(await again.next()).toMatchObject({ event: 'state', data: { status: 'human' } });
    expect(await again.next()).toMatchObject({ event: 'message', data: { content: 'Thanks!' } });
    // Nothing else was caught up on: the next event is the next message stored.
    await say(uniqueId, 'One more thing', sessionId);
    expect(await again.next()).toMatchObject({ event: 'message', data: { content: 'One more thing' } });
    again.close();

    // Both streams let go of everything: the gateway's, and the chat service's pub/sub listener.
    const redis = createRedis(stack.redisUrl);
    try {
      const channel = `${stack.queuePrefix}:conversation:${conversation}`;
      await expect.poll(async () => ((await redis.pubsub('NUMSUB', channel)) as [string, number])[1]).toBe(0);
    } finally {
      await redis.quit();
    }
    await expect.poll(openStreamsGauge).toBe(0);
  });

  it("ends with the agent's hand-back: the state says bot, and the bot answers again", async () => {
    const { owner, uniqueId } = await handoffChatbot();
    const { sessionId } = await say(uniqueId, 'Hello');
    expect((await api(stack.url, `${base(uniqueId)}/handoff`, { body: { sessionId } })).status).toBe(200);
    const stream = await openEvents(`${base(uniqueId)}/events?sessionId=${sessionId}`);
    expect(await stream.next()).toMatchObject({ event: 'state', data: { status: 'waiting' } });
    await chat.handBackConversation({
      ownerId: owner.userId,
      conversationId: await conversationId(sessionId),
      agent: { id: owner.userId, name: 'Ada' },
    });
    let state = await stream.next();
    while (state.event !== 'state') state = await stream.next();
    expect(state.data).toMatchObject({ status: 'bot', agentName: null, waitingSince: null, timedOut: false });
    stream.close();
    const answered = await say(uniqueId, 'Back to you, bot', sessionId);
    expect(answered.message).not.toBe('');
    expect(answered).not.toHaveProperty('handoff');
  });

  it('is ended by a gateway that shuts down, so the drain does not wait for visitors to leave', async () => {
    const { uniqueId } = await handoffChatbot();
    const { sessionId } = await say(uniqueId, 'Hello');
    expect((await api(stack.url, `${base(uniqueId)}/handoff`, { body: { sessionId } })).status).toBe(200);
    // A gateway of its own, stopped as the process lifecycle stops one: the server closes beside the background work.
    const config = readGatewayConfig({ ...stack.gatewayEnv, LOG_LEVEL: 'silent', SERVICE_SECRET: TEST_SERVICE_SECRET });
    const parts = await createGateway(config, { logger: createLogger('gateway-test', 'silent') });
    const server = await serveApp(parts.app);
    try {
      const res = await fetch(`${server.url}${base(uniqueId)}/events?sessionId=${sessionId}`, { headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('event: state');
      await Promise.all([server.close(), ...(parts.background ?? []).map((stop) => stop())]);
      // The rest of the stream is its end.
      for (let step = await reader.read(); !step.done; step = await reader.read());
    } finally {
      for (const close of parts.closers) await close();
    }
  });
});
