// One suite, run against every pairing of the lean transport (transport/lean-unary.ts) and the
// library's (@connectrpc/connect-node client, @connectrpc/connect-express handler): whichever carries
// a call, a caller and an implementation see the same thing.
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext, type Interceptor } from '@connectrpc/connect';
import { AuthService, UserSchema } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentRequestId, runWithRequestId } from '../src/context.ts';
import { createServiceApp } from '../src/http.ts';
import { listen } from '../src/lifecycle.ts';
import { createLogger } from '../src/logger.ts';
import { createServiceClient, type ServiceClientOptions } from '../src/rpc-client.ts';
import { PLAN_LIMIT_HEADER, unavailableToUser, USER_MESSAGE_HEADER } from '../src/rpc-errors.ts';
import { DEVELOPMENT_SERVICE_SECRET, signServiceToken } from '../src/service-auth.ts';
import { NUL_REFUSED } from '../src/text-hygiene.ts';
import type { UnaryTransportChoice } from '../src/transport/lean-unary.ts';

/** What the implementation saw of the last call with a given token. */
interface Seen {
  header: Headers;
  timeoutMs: number | undefined;
  signal: AbortSignal;
}

const ERROR_CODES = Object.values(Code).filter((c): c is Code => typeof c === 'number');

async function startServer(unaryTransport: UnaryTransportChoice) {
  const seen = new Map<string, Seen>();
  const intercepted: string[] = [];
  const serverInterceptor: Interceptor = (next) => async (req) => {
    intercepted.push(req.method.name);
    if (req.header.get('x-refuse')) throw new ConnectError('refused by an interceptor', Code.PermissionDenied);
    const res = await next(req);
    res.header.set('x-server-interceptor', 'yes');
    return res;
  };
  const app = createServiceApp({
    logger: createLogger('test', 'silent'),
    trust: { secret: DEVELOPMENT_SERVICE_SECRET, callers: ['gateway'] },
    readiness: [],
    interceptors: [serverInterceptor],
    unaryTransport,
    // A connection dropped before any answer.
    extend: (app) => app.use((req, _res, next) => (req.headers['x-drop'] ? req.socket.destroy() : next())),
    routes: (router) => {
      router.service(AuthService, {
        async authenticate(req, context: HandlerContext) {
          seen.set(req.token, { header: context.requestHeader, timeoutMs: context.timeoutMs(), signal: context.signal });
          const code = /^code:(\d+)$/.exec(req.token);
          if (code) throw new ConnectError(`failed with ${code[1]}`, Number(code[1]), { 'x-detail': `detail ${code[1]}` });
          switch (req.token) {
            case 'busy':
              throw unavailableToUser('Busy right now');
            case 'limit':
              throw new ConnectError('Free plan limit reached', Code.FailedPrecondition, { [PLAN_LIMIT_HEADER]: 'true' });
            case 'crash':
              throw new Error('secret internals');
            case 'slow':
              await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, 1000);
                context.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()));
              });
              return {};
            case 'headers':
              context.responseHeader.set('x-answer', 'from the implementation');
              context.responseTrailer.set('x-trailer', 'after the answer');
              return {};
            case 'big':
              return { user: create(UserSchema, { name: 'é'.repeat(300_000) }) };
            default:
              // The request id as the service's own code reads it (its async context).
              return { user: create(UserSchema, { id: '1', name: currentRequestId() ?? '' }) };
          }
        },
      });
      router.service(ChatService, {
        async *streamMessage(req, context) {
          seen.set(`stream:${req.uniqueId}`, { header: context.requestHeader, timeoutMs: context.timeoutMs(), signal: context.signal });
          yield { event: { case: 'delta', value: 'one' } };
          yield { event: { case: 'delta', value: 'two' } };
        },
      });
    },
  });
  const server = await listen(app, 0, '127.0.0.1');
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Every call has ended; a connection the client opened and never used would otherwise hold
      // the close until the keep-alive timeout.
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close, seen, intercepted };
}

/** The error a call fails with. */
async function failure(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectError);
    return err as ConnectError;
  }
  throw new Error('expected the call to fail');
}

const pairings: { client: UnaryTransportChoice; server: UnaryTransportChoice }[] = [
  { client: 'lean', server: 'lean' },
  { client: 'library', server: 'library' },
  { client: 'lean', server: 'library' },
  { client: 'library', server: 'lean' },
];

describe.each(pairings)('client $client → server $server', ({ client: unaryTransport, server: serverTransport }) => {
  let server: Awaited<ReturnType<typeof startServer>>;
  const auth = (opts: ServiceClientOptions = {}) => createServiceClient(AuthService, server.url, { unaryTransport, ...opts });

  beforeAll(async () => {
    server = await startServer(serverTransport);
  });
  afterAll(() => server.close());

  it('is carried by the transports it names', async () => {
    // The library's client names itself; the lean one sends no user agent.
    await auth().authenticate({ token: 'ok' });
    const agent = server.seen.get('ok')!.header.get('user-agent');
    if (unaryTransport === 'lean') expect(agent).toBeNull();
    else expect(agent).toMatch(/^connect-es\//);
    // The one answer the handlers give differently: a binary body that is not the request message
    // is the caller's fault for the lean handler (InvalidArgument), Internal for the library's.
    const garbage = await fetch(`${server.url}/parley.auth.v1.AuthService/Authenticate`, {
      method: 'POST',
      headers: {
        'content-type': 'application/proto',
        authorization: `Bearer ${signServiceToken({ caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET })}`,
      },
      body: new Uint8Array([0xff, 0xff, 0xff, 0xff]),
    });
    expect(((await garbage.json()) as { code: string }).code).toBe(serverTransport === 'lean' ? 'invalid_argument' : 'internal');
  });

  it('answers, carrying the service token, the request id, the protocol headers and the call headers', async () => {
    const res = await runWithRequestId('req-ok-1', () => auth().authenticate({ token: 'ok' }, { headers: { 'x-custom': 'c' } }));
    expect(res.user).toMatchObject({ id: '1', name: 'req-ok-1' });
    const header = server.seen.get('ok')!.header;
    expect(header.get('authorization')).toMatch(/^Bearer gateway\.\d+\./);
    expect(header.get('x-request-id')).toBe('req-ok-1');
    expect(header.get('x-custom')).toBe('c');
    expect(header.get('content-type')).toBe('application/proto');
    expect(header.get('connect-protocol-version')).toBe('1');
    expect(header.get('content-encoding')).toBeNull();
    // Neither offers to accept compressed answers.
    expect(header.get('connect-accept-encoding')).toBeNull();
  });

  it('carries every error code with its message and metadata', async () => {
    const client = auth();
    for (const code of ERROR_CODES) {
      const err = await failure(client.authenticate({ token: `code:${code}` }));
      expect({ code: err.code, message: err.rawMessage, detail: err.metadata.get('x-detail') }).toEqual({
        code,
        message: `failed with ${code}`,
        detail: `detail ${code}`,
      });
    }
  });

  it("carries the kit's user-message and limit-reached metadata, and hides an unexpected failure", async () => {
    const client = auth();
    const busy = await failure(client.authenticate({ token: 'busy' }));
    expect(busy).toMatchObject({ code: Code.Unavailable, rawMessage: 'Busy right now' });
    expect(busy.metadata.get(USER_MESSAGE_HEADER)).toBe('true');
    const limit = await failure(client.authenticate({ token: 'limit' }));
    expect(limit).toMatchObject({ code: Code.FailedPrecondition, rawMessage: 'Free plan limit reached' });
    expect(limit.metadata.get(PLAN_LIMIT_HEADER)).toBe('true');
    const crash = await failure(client.authenticate({ token: 'crash' }));
    expect(crash).toMatchObject({ code: Code.Internal, rawMessage: 'Internal error' });
    const nul = await failure(client.authenticate({ token: 'a\u0000b' }));
    expect(nul).toMatchObject({ code: Code.InvalidArgument, rawMessage: NUL_REFUSED });
  });

  it('sends the deadline, ends a call at it, and lets a call set or lift its own', async () => {
    // Deadlines long enough for the call to reach the server on a busy machine: the header is
    // read from what the server saw, so a call cut before it arrived would read the last one's.
    server.seen.delete('slow');
    const err = await failure(auth({ timeoutMs: 1000 }).authenticate({ token: 'slow' }));
    expect(err.code).toBe(Code.DeadlineExceeded);
    const slow = server.seen.get('slow')!;
    expect(slow.header.get('connect-timeout-ms')).toBe('1000');
    expect(slow.timeoutMs).toBeLessThanOrEqual(1000);
    // The implementation's signal fires too (its deadline, or the caller gone).
    await expect.poll(() => slow.signal.aborted).toBe(true);

    server.seen.delete('slow');
    const perCall = await failure(auth().authenticate({ token: 'slow' }, { timeoutMs: 500 }));
    expect(perCall.code).toBe(Code.DeadlineExceeded);
    expect(server.seen.get('slow')!.header.get('connect-timeout-ms')).toBe('500');

    await auth().authenticate({ token: 'ok' });
    expect(server.seen.get('ok')!.header.get('connect-timeout-ms')).toBe('5000');
    await auth().authenticate({ token: 'ok' }, { timeoutMs: 0 });
    expect(server.seen.get('ok')!.header.get('connect-timeout-ms')).toBeNull();
    expect(server.seen.get('ok')!.timeoutMs).toBeUndefined();
  });

  it('cancels a call when its signal aborts, before or during the call', async () => {
    const abort = new AbortController();
    const call = auth().authenticate({ token: 'slow' }, { signal: abort.signal });
    setTimeout(() => abort.abort(), 20);
    expect((await failure(call)).code).toBe(Code.Canceled);
    expect((await failure(auth().authenticate({ token: 'ok' }, { signal: AbortSignal.abort() }))).code).toBe(Code.Canceled);
  });

  it('hands the response headers and trailers to the caller', async () => {
    let header: Headers | undefined;
    let trailer: Headers | undefined;
    await auth().authenticate({ token: 'headers' }, { onHeader: (h) => (header = h), onTrailer: (t) => (trailer = t) });
    expect(header?.get('x-answer')).toBe('from the implementation');
    expect(header?.get('x-server-interceptor')).toBe('yes');
    expect(header?.get('content-type')).toBe('application/proto');
    expect(trailer?.get('x-trailer')).toBe('after the answer');
    expect(header?.get('trailer-x-trailer')).toBeNull();
  });

  it("runs the caller's interceptors on unary and streaming calls, and the service's on every call", async () => {
    const calls: { stream: boolean; url: string; answered?: string | null }[] = [];
    const interceptor: Interceptor = (next) => async (req) => {
      req.header.set('x-client-interceptor', 'set');
      const call: (typeof calls)[number] = { stream: req.stream, url: req.url };
      calls.push(call);
      const res = await next(req);
      call.answered = res.header.get('x-server-interceptor');
      return res;
    };
    const before = server.intercepted.length;
    await auth({ interceptors: [interceptor] }).authenticate({ token: 'intercepted' });
    expect(server.seen.get('intercepted')!.header.get('x-client-interceptor')).toBe('set');
    expect(calls).toEqual([{ stream: false, url: `${server.url}/parley.auth.v1.AuthService/Authenticate`, answered: 'yes' }]);

    const chat = createServiceClient(ChatService, server.url, { unaryTransport, interceptors: [interceptor] });
    const deltas: string[] = [];
    await runWithRequestId('req-stream-1', async () => {
      for await (const event of chat.streamMessage({ uniqueId: 'bot' })) if (event.event.case === 'delta') deltas.push(event.event.value);
    });
    expect(deltas).toEqual(['one', 'two']);
    const streamed = server.seen.get('stream:bot')!.header;
    expect(streamed.get('x-client-interceptor')).toBe('set');
    expect(streamed.get('x-request-id')).toBe('req-stream-1');
    expect(streamed.get('authorization')).toMatch(/^Bearer gateway\./);
    expect(calls[1]).toMatchObject({ stream: true });
    expect(server.intercepted.slice(before)).toEqual(['Authenticate', 'StreamMessage']);

    // A service interceptor's refusal reaches the caller like any error.
    const refused = await failure(auth().authenticate({ token: 'ok' }, { headers: { 'x-refuse': '1' } }));
    expect(refused).toMatchObject({ code: Code.PermissionDenied, rawMessage: 'refused by an interceptor' });
  });

  it('carries a large answer, and reports a dropped connection and an unreachable service', async () => {
    expect((await auth().authenticate({ token: 'big' })).user?.name).toBe('é'.repeat(300_000));
    const dropped = await failure(auth().authenticate({ token: 'ok' }, { headers: { 'x-drop': '1' } }));
    expect(dropped.code).toBe(Code.Aborted);
    // Nothing listens on port 9 (discard) here.
    const nowhere = createServiceClient(AuthService, 'http://127.0.0.1:9', { unaryTransport });
    expect((await failure(nowhere.authenticate({ token: 't' }))).code).toBe(Code.Unavailable);
  });
});

describe('a server that answers garbage, to either client', () => {
  const servers: { close: () => Promise<void> }[] = [];
  const urls: Record<string, string> = {};

  const listen = async (name: string, server: Server | ReturnType<typeof createNetServer>) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sockets = new Set<Socket>();
    server.on('connection', (socket: Socket) => sockets.add(socket));
    servers.push({
      close: () =>
        new Promise((resolve) => {
          server.close(() => resolve());
          // The clients' agents keep their connections alive.
          for (const socket of sockets) socket.destroy();
        }),
    });
  };
  const http = (answer: (res: ServerResponse) => void) =>
    createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => answer(res));
    });

  beforeAll(async () => {
    await listen(
      'not HTTP',
      createNetServer((socket) => {
        socket.on('error', () => {});
        socket.end('this is not HTTP at all\r\n\r\n');
      }),
    );
    await listen(
      'a body that is not the message',
      http((res) => res.writeHead(200, { 'content-type': 'application/proto' }).end(Buffer.from([0xff, 0xff, 0xff, 0xff]))),
    );
    await listen(
      'a web page',
      http((res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>hello</h1>')),
    );
    await listen(
      'a proxy error page',
      http((res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>')),
    );
    await listen(
      'JSON that is not a Connect error',
      http((res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"oops":true}')),
    );
    await listen(
      'broken JSON',
      http((res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":')),
    );
    await listen(
      'a compressed answer',
      http((res) => res.writeHead(200, { 'content-type': 'application/proto', 'content-encoding': 'gzip' }).end(Buffer.from([1, 2, 3]))),
    );
    await listen(
      'fewer bytes than promised',
      http((res) => {
        res.writeHead(200, { 'content-type': 'application/proto', 'content-length': '100' });
        res.write(Buffer.from([0x0a, 0x00]));
        setTimeout(() => res.destroy(), 10);
      }),
    );
  });
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  const expected: Record<string, Code> = {
    'not HTTP': Code.Internal,
    'a body that is not the message': Code.Internal,
    // No Connect content type at all.
    'a web page': Code.Unknown,
    'a proxy error page': Code.Unavailable,
    'JSON that is not a Connect error': Code.Unavailable,
    // The code HTTP 400 stands for.
    'broken JSON': Code.Internal,
    'a compressed answer': Code.Internal,
    'fewer bytes than promised': Code.Aborted,
  };

  it.each(Object.keys(expected))('%s: the same error from both transports', async (name) => {
    const outcomes = [];
    for (const unaryTransport of ['lean', 'library'] as const) {
      const err = await failure(createServiceClient(AuthService, urls[name], { unaryTransport }).authenticate({ token: 't' }));
      outcomes.push({ code: err.code, message: err.rawMessage });
    }
    expect(outcomes[0].code).toBe(expected[name]);
    expect(outcomes[0]).toEqual(outcomes[1]);
  });
});
