// The chat service dying under visitors who are waiting for an answer (failure modes):
// the gateway reaches the real chat service through a TCP relay this test controls, and the relay's
// connections are reset (or closed) mid-answer, as when the chat process is killed. Every visitor in flight
// gets the clear 503 (docs/product.md, Messages) (or, once the event stream has started, its `error` event), never a 500.
import { createServer, Socket, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { createLogger } from '@parley/common/logger.ts';
import { INTERNAL_MESSAGE, mapError, UNAVAILABLE_MESSAGE } from '../src/http/errors.ts';
import { registerOwner } from './chatbot-fixtures.ts';
import { api, startGateway, startStack, type Stack } from './stack.ts';

const UNAVAILABLE = { message: UNAVAILABLE_MESSAGE };

let stack: Stack;
let fake: FakeOpenAI;
let relay: Relay;
let gateway: Awaited<ReturnType<typeof startGateway>>;

type Cut = 'reset' | 'close';

/** A TCP relay to the chat service whose open connections can be cut at will. */
interface Relay {
  url: string;
  /** Cuts every open connection, in both directions: with a TCP reset (the chat process killed) or a plain close. */
  cutAll(how: Cut): void;
  close(): Promise<void>;
}

async function startRelay(target: string): Promise<Relay> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {}); // a reset is what this relay is for
  };
  const server: Server = createServer((inbound) => {
    track(inbound);
    inbound.pause();
    const outbound = new Socket();
    track(outbound);
    outbound.connect(Number(port), hostname, () => {
      inbound.pipe(outbound).pipe(inbound);
      inbound.resume();
    });
    const both = () => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('close', both);
    outbound.on('close', both);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    cutAll(how) {
      for (const socket of sockets) {
        if (how === 'reset') socket.resetAndDestroy();
        else socket.destroy();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply: () => 'word '.repeat(40).trim() });
  stack = await startStack({ chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url } });
  relay = await startRelay(stack.chatUrl);
  gateway = await startGateway({ ...stack.gatewayEnv, CHAT_URL: relay.url });
});
afterAll(async () => {
  await gateway?.close();
  await relay?.close();
  await stack?.close();
  await fake?.close();
});

let visitor = 0;
const visitorIp = () => `203.0.113.${++visitor}`;

async function chatbotOf(): Promise<string> {
  const owner = await registerOwner(stack, 'failures');
  const res = await api(stack.url, '/api/chatbot', { body: { name: 'Fragile Bot' }, token: owner.token });
  expect(res.status).toBe(201);
  return res.body.uniqueId as string;
}

function send(uniqueId: string, stream: boolean): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': visitorIp() };
  if (stream) headers.accept = 'text/event-stream';
  return fetch(`${gateway.url}/api/chatbot/public/${uniqueId}/chat`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ message: 'Are you still there?', model: 'gpt-4o-mini' }),
  });
}

/** Resolves once the fake model has received `count` requests in all. */
async function modelRequests(count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (fake.requests.length < count) {
    if (Date.now() > deadline) throw new Error('the model was never asked');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each<Cut>(['reset', 'close'])('the chat service connection cut (%s) while a visitor waits', (how) => {
  it('answers a JSON request in flight with 503 and the clear message', async () => {
    const uniqueId = await chatbotOf();
    fake.setBehaviour({ delayMs: 5000, chunkDelayMs: 0 });
    const asked = fake.requests.length + 1;
    const pending = send(uniqueId, false);
    await modelRequests(asked);
    relay.cutAll(how);
    const res = await pending;
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual(UNAVAILABLE);
  });

  it('answers a stream that has not started with a JSON 503', async () => {
    const uniqueId = await chatbotOf();
    fake.setBehaviour({ delayMs: 5000, chunkDelayMs: 0 });
    const asked = fake.requests.length + 1;
    const pending = send(uniqueId, true);
    await modelRequests(asked);
    relay.cutAll(how);
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(UNAVAILABLE);
  });

  it('ends a stream already started with an error event carrying the clear message', async () => {
    const uniqueId = await chatbotOf();
    fake.setBehaviour({ delayMs: 0, chunkDelayMs: 300 });
    const res = await send(uniqueId, true);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('event: delta')) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    expect(received).toContain('event: delta');
    relay.cutAll(how);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    const events = received.split('\n\n').filter((b) => b.trim());
    expect(events.at(-1)).toBe(`event: error\ndata: ${JSON.stringify(UNAVAILABLE)}`);
    expect(received).not.toContain('event: done');
  });

  it('still answers once the chat service is reachable again', async () => {
    const uniqueId = await chatbotOf();
    fake.setBehaviour({ delayMs: 0, chunkDelayMs: 0 });
    const res = await send(uniqueId, false);
    expect(res.status).toBe(200);
  });
});

describe('what counts as a lost connection', () => {
  const logger = createLogger('errors-test', 'silent');
  const withCause = (code: Code, cause: unknown) => {
    const err = new ConnectError('call failed', code);
    err.cause = cause;
    return err;
  };

  it("is a call whose cause is Node's socket error", () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(mapError(withCause(Code.Aborted, reset), logger)).toMatchObject({ status: 503, message: UNAVAILABLE_MESSAGE });
  });

  it("is not a service's own Internal or Aborted error (Aborted is its conflict, 409)", () => {
    expect(mapError(new ConnectError('Internal error', Code.Internal), logger)).toMatchObject({ status: 500, message: INTERNAL_MESSAGE });
    expect(mapError(new ConnectError('conflict', Code.Aborted), logger)).toMatchObject({ status: 409, message: 'conflict' });
    expect(mapError(withCause(Code.Internal, new Error('no code')), logger)).toMatchObject({ status: 500 });
  });
});
