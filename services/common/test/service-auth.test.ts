// Service-to-service trust: no RPC route answers a caller without a valid service token, whichever
// handler would serve it (the lean unary one, the generic Connect one, a streaming method).
import { create, toBinary } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { AuthenticateRequestSchema, AuthService, UserSchema } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { currentRole } from '../src/context.ts';
import { createServiceApp } from '../src/http.ts';
import { createLogger } from '../src/logger.ts';
import { createServiceClient } from '../src/rpc-client.ts';
import {
  DEVELOPMENT_SERVICE_SECRET,
  methodPermissions,
  requireServiceToken,
  roleRefusal,
  serviceTokenSource,
  signServiceToken,
  verifyServiceToken,
  type ServiceTrust,
} from '../src/service-auth.ts';
import { serveApp } from '../src/testing/serve.ts';

const secret = 'a-test-service-secret-of-forty-characters';
const trust: ServiceTrust = { secret, callers: ['gateway', 'chat'] };
const now = () => Math.floor(Date.now() / 1000);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let url: string;
let close: () => Promise<void>;
/** Handler runs: a refused call must never reach one. */
let ran = 0;
/** The role the last handler run saw as the request's (currentRole). */
let seenRole: string | undefined;

beforeAll(async () => {
  const app = createServiceApp({
    logger: createLogger('test', 'silent'),
    readiness: [],
    trust,
    routes: (router) =>
      router
        .service(AuthService, {
          async authenticate() {
            ran++;
            seenRole = currentRole();
            return { user: create(UserSchema, { id: 'u1' }) };
          },
        })
        .service(ChatService, {
          async *streamMessage() {
            ran++;
            yield { event: { case: 'delta', value: 'hi' } };
          },
        }),
  });
  ({ url, close } = await serveApp(app));
});

afterAll(() => close());

beforeEach(() => {
  ran = 0;
  seenRole = undefined;
});

const unaryPath = () => `${url}/parley.auth.v1.AuthService/Authenticate`;
const binaryBody = () => toBinary(AuthenticateRequestSchema, create(AuthenticateRequestSchema, { token: 't' })) as BodyInit;
/** The three ways in: lean binary unary, generic JSON unary, a server stream. */
const calls: [string, (headers: Record<string, string>) => Promise<Response>][] = [
  [
    'lean binary unary',
    (headers) => fetch(unaryPath(), { method: 'POST', headers: { 'content-type': 'application/proto', ...headers }, body: binaryBody() }),
  ],
  [
    'generic JSON unary',
    (headers) => fetch(unaryPath(), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"token":"t"}' }),
  ],
  [
    'server stream',
    (headers) => {
      // One Connect envelope: flags 0, a 4-byte length, the JSON message.
      const json = Buffer.from('{"uniqueId":"x","message":"hi"}');
      const envelope = Buffer.concat([Buffer.from([0, 0, 0, 0, json.length]), json]);
      return fetch(`${url}/parley.chat.v1.ChatService/StreamMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/connect+json', 'connect-protocol-version': '1', ...headers },
        body: envelope,
      });
    },
  ],
];

describe('service token check', () => {
  it.each(calls)('answers a %s call without a token 401 in Connect error JSON, without running the handler', async (_name, call) => {
    const res = await call({});
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ code: 'unauthenticated', message: 'service credentials required' });
    expect(ran).toBe(0);
  });

  it.each(calls)('answers a %s call with a valid token', async (_name, call) => {
    const res = await call(bearer(signServiceToken({ caller: 'chat', secret })));
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(ran).toBe(1);
  });

  const valid = () => signServiceToken({ caller: 'gateway', secret });
  it.each([
    ['a wrong MAC', () => signServiceToken({ caller: 'gateway', secret: `${secret}-other` })],
    ['a MAC of another caller', () => `chat.${now()}.${valid().split('.')[2]}`],
    ['an expired timestamp', () => signServiceToken({ caller: 'gateway', secret }, now() - 61)],
    ['a timestamp too far ahead', () => signServiceToken({ caller: 'gateway', secret }, now() + 61)],
    ['a caller not allowed', () => signServiceToken({ caller: 'chatbot', secret })],
    ['a malformed token', () => `${valid()}x`],
    ['the development secret', () => signServiceToken({ caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET })],
  ])('refuses %s with 401', async (_name, token) => {
    for (const [, call] of calls) {
      const res = await call(bearer(token()));
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('unauthenticated');
    }
    expect(ran).toBe(0);
  });

  it('accepts a token within the window either way', () => {
    expect(verifyServiceToken(`Bearer ${signServiceToken({ caller: 'chat', secret }, now() - 60)}`, trust)).toEqual({ caller: 'chat' });
    expect(verifyServiceToken(`Bearer ${signServiceToken({ caller: 'chat', secret }, now() + 60)}`, trust)).toEqual({ caller: 'chat' });
    expect(verifyServiceToken(`Basic ${signServiceToken({ caller: 'chat', secret })}`, trust)).toEqual({
      refused: 'malformed service token',
    });
  });

  it('checks a token it verified before as strictly as a new one: window, caller, every byte of the MAC', () => {
    const receiver: ServiceTrust = { secret, callers: ['chat'] };
    const issued = now();
    const token = `Bearer ${signServiceToken({ caller: 'chat', secret }, issued)}`;
    expect(verifyServiceToken(token, receiver, issued)).toEqual({ caller: 'chat' });
    // The same token again: still valid inside the window, refused once it has passed.
    expect(verifyServiceToken(token, receiver, issued + 30)).toEqual({ caller: 'chat' });
    expect(verifyServiceToken(token, receiver, issued + 61)).toEqual({ refused: 'expired service token' });
    // The remembered token with one character of its MAC changed, or its MAC on another time or caller.
    const [, head, mac] = /^(Bearer chat\.\d+\.)(.+)$/.exec(token)!;
    const changed = `${head}${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    expect(verifyServiceToken(changed, receiver, issued)).toEqual({ refused: 'bad signature' });
    expect(verifyServiceToken(`Bearer chat.${issued + 1}.${mac}`, receiver, issued)).toEqual({ refused: 'bad signature' });
    expect(verifyServiceToken(`Bearer gateway.${issued}.${mac}`, receiver, issued)).toEqual({ refused: 'bad signature' });
    // Another receiver's trust (another secret) does not share what this one verified.
    expect(verifyServiceToken(token, { secret: `${secret}-other`, callers: ['chat'] }, issued)).toEqual({ refused: 'bad signature' });
    // And the remembered token still works after the refusals.
    expect(verifyServiceToken(token, receiver, issued)).toEqual({ caller: 'chat' });
  });

  it('leaves /healthz, /readyz and /metrics open, and refuses any other path', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    expect((await fetch(`${url}/anything`)).status).toBe(401);
  });

  it('accepts SERVICE_SECRET_PREVIOUS besides the secret, whichever of the two is the newer, and refuses any other', () => {
    const older = 'the-older-service-secret-of-forty-characters';
    const newer = 'the-newer-service-secret-of-forty-characters';
    const token = (s: string) => `Bearer ${signServiceToken({ caller: 'chat', secret: s })}`;
    const callers = ['chat'] as const;
    // Halfway through a rotation: some processes sign with the newer secret, some still with the older.
    for (const receiver of [
      { secret: newer, previousSecret: older, callers },
      { secret: older, previousSecret: newer, callers },
    ]) {
      expect(verifyServiceToken(token(newer), receiver)).toEqual({ caller: 'chat' });
      expect(verifyServiceToken(token(older), receiver)).toEqual({ caller: 'chat' });
      expect(verifyServiceToken(token(secret), receiver)).toEqual({ refused: 'bad signature' });
    }
    // Once the rotation is over (no previous secret), the older one is refused.
    expect(verifyServiceToken(token(older), { secret: newer, callers })).toEqual({ refused: 'bad signature' });
    expect(() => requireServiceToken({ secret: newer, previousSecret: 'short', callers }, () => {})).toThrowError('at least 32 characters');
  });

  it('refuses a secret shorter than 32 characters', () => {
    expect(() => requireServiceToken({ secret: 'short', callers: ['gateway'] }, () => {})).toThrowError('at least 32 characters');
  });
});

describe('service clients', () => {
  it('sign unary and streaming calls with their credentials', async () => {
    const auth = createServiceClient(AuthService, url, { credentials: { caller: 'chat', secret } });
    expect((await auth.authenticate({ token: 't' })).user?.id).toBe('u1');
    const chat = createServiceClient(ChatService, url, { credentials: { caller: 'gateway', secret } });
    const events = [];
    for await (const e of chat.streamMessage({ uniqueId: 'x', message: 'hi' })) events.push(e.event.value);
    expect(events).toEqual(['hi']);
    expect(ran).toBe(2);
  });

  it('get Unauthenticated, unary and streaming, with the wrong secret or as a caller not allowed', async () => {
    for (const credentials of [
      { caller: 'gateway', secret: `${secret}-other` },
      { caller: 'chatbot', secret },
    ] as const) {
      const auth = createServiceClient(AuthService, url, { credentials });
      await expect(auth.authenticate({ token: 't' })).rejects.toMatchObject({ code: Code.Unauthenticated });
      const chat = createServiceClient(ChatService, url, { credentials });
      const stream = async () => {
        for await (const _ of chat.streamMessage({ uniqueId: 'x', message: 'hi' }));
      };
      await expect(stream()).rejects.toMatchObject({ code: Code.Unauthenticated });
    }
    expect(ran).toBe(0);
  });

  it('reuse a token for a while rather than signing every call', () => {
    const next = serviceTokenSource({ caller: 'chat', secret });
    const first = next();
    expect(next()).toBe(first);
    expect(verifyServiceToken(`Bearer ${first}`, trust)).toEqual({ caller: 'chat' });
  });
});

describe("the member's role on the gateway's calls", () => {
  const permissions = methodPermissions(ChatService, { ListConversations: 'conversations:read', GetAnalytics: 'workspace:read' });
  const conversations = '/parley.chat.v1.ChatService/ListConversations';

  it('names each method by its path, and refuses a table naming a method the service lacks', () => {
    expect([...permissions.keys()]).toEqual([conversations, '/parley.chat.v1.ChatService/GetAnalytics']);
    expect(() => methodPermissions(ChatService, { NoSuchMethod: 'workspace:read' } as never)).toThrowError('has no method NoSuchMethod');
  });

  it("refuses a gateway call whose role lacks the method's permission, or that carries none", () => {
    expect(roleRefusal('gateway', conversations, 'agent', permissions)).toBeUndefined();
    expect(roleRefusal('gateway', conversations, 'owner', permissions)).toBeUndefined();
    expect(roleRefusal('gateway', conversations, 'viewer', permissions)).toBe(`role viewer lacks conversations:read for ${conversations}`);
    expect(roleRefusal('gateway', conversations, undefined, permissions)).toBe(`no role for ${conversations}`);
    expect(roleRefusal('gateway', conversations, ['owner', 'owner'], permissions)).toBe(`no role for ${conversations}`);
  });

  it('checks neither the methods outside the table nor the calls of other services', () => {
    expect(roleRefusal('gateway', '/parley.chat.v1.ChatService/SendMessage', undefined, permissions)).toBeUndefined();
    expect(roleRefusal('chat', conversations, undefined, permissions)).toBeUndefined();
    expect(roleRefusal('gateway', conversations, undefined, undefined)).toBeUndefined();
  });

  it("gives the handler the role a gateway call carries, on either transport, and no role a service's call names", async () => {
    for (const unaryTransport of ['lean', 'library'] as const) {
      const as = (caller: 'gateway' | 'chat', role: string) =>
        createServiceClient(AuthService, url, { credentials: { caller, secret }, role, unaryTransport }).authenticate({});
      await as('gateway', 'viewer');
      expect({ unaryTransport, seenRole }).toEqual({ unaryTransport, seenRole: 'viewer' });
      await as('gateway', 'agent');
      expect({ unaryTransport, seenRole }).toEqual({ unaryTransport, seenRole: 'agent' });
      await as('gateway', 'root');
      expect({ unaryTransport, seenRole }).toEqual({ unaryTransport, seenRole: undefined });
      await as('chat', 'owner');
      expect({ unaryTransport, seenRole }).toEqual({ unaryTransport, seenRole: undefined });
    }
  });
});
