import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { Code, createConnectRouter } from '@connectrpc/connect';
import express from 'express';
import { AuthenticateRequestSchema, AuthenticateResponseSchema, AuthService, UserSchema } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentRequestId } from '../src/context.ts';
import { createServiceApp } from '../src/http.ts';
import { createLogger } from '../src/logger.ts';
import { createServiceClient } from '../src/rpc-client.ts';
import { unavailableToUser, USER_MESSAGE_HEADER } from '../src/rpc-errors.ts';
import { DEVELOPMENT_SERVICE_SECRET, signServiceToken } from '../src/service-auth.ts';
import { serveApp } from '../src/testing/serve.ts';
import { createLeanUnaryHandler } from '../src/transport/lean-unary.ts';

let url: string;
let close: () => Promise<void>;
let healthy = true;
/** How many Authenticate calls reached the handler. */
let handled = 0;
/** What a raw call sends to pass the service token check (service-auth.test.ts covers the check). */
const auth = () => ({ authorization: `Bearer ${signServiceToken({ caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET })}` });

beforeAll(async () => {
  const app = createServiceApp({
    logger: createLogger('test', 'silent'),
    trust: { secret: DEVELOPMENT_SERVICE_SECRET, callers: ['gateway'] },
    readiness: [
      {
        name: 'database',
        check: async () => {
          if (!healthy) throw new Error('down');
        },
      },
    ],
    routes: (router) =>
      router.service(AuthService, {
        async authenticate(req) {
          handled += 1;
          if (req.token === 'crash') throw new Error('secret internals');
          if (req.token === 'busy') throw unavailableToUser('Busy right now');
          return { user: create(UserSchema, { id: '1', name: currentRequestId() ?? '' }) };
        },
        async register() {
          throw new Error('unused');
        },
        async login() {
          throw new Error('unused');
        },
        async logout() {
          return {};
        },
      }),
  });
  ({ url, close } = await serveApp(app));
});

afterAll(() => close());

// The service app's two handlers side by side; what a client sees of either is test/transport.test.ts.
describe('service app', () => {
  it('refuses a NUL anywhere in a request before the handler runs, on the lean and the generic path', async () => {
    const before = handled;
    const client = createServiceClient(AuthService, url);
    await expect(client.authenticate({ token: 'a\u0000b' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: 'Text must not contain NUL characters.',
    });
    const json = await fetch(`${url}/parley.auth.v1.AuthService/Authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth() },
      body: JSON.stringify({ token: 'a\u0000b' }),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: 'invalid_argument', message: 'Text must not contain NUL characters.' });
    expect(handled).toBe(before);
    // Other control characters are the gateway's to judge; a tab passes.
    await expect(client.authenticate({ token: 'a\tb' })).resolves.toBeTruthy();
  });

  it('answers binary unary calls itself and everything else as the generic Connect handler does', async () => {
    const path = `${url}/parley.auth.v1.AuthService/Authenticate`;
    const binary = (body: Uint8Array, headers: Record<string, string> = {}) =>
      fetch(path, { method: 'POST', headers: { 'content-type': 'application/proto', ...auth(), ...headers }, body: body as BodyInit });
    // JSON (as curl or a browser client sends it) goes to the generic handler.
    const json = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth() },
      body: JSON.stringify({ token: 't' }),
    });
    expect(json.status).toBe(200);
    expect(((await json.json()) as { user: { id: string } }).user.id).toBe('1');
    const jsonError = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth() },
      body: JSON.stringify({ token: 'busy' }),
    });
    const binaryError = await binary(toBinary(AuthenticateRequestSchema, create(AuthenticateRequestSchema, { token: 'busy' })));
    for (const res of [jsonError, binaryError]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.headers.get(USER_MESSAGE_HEADER)).toBe('true');
      expect(await res.json()).toEqual({ code: 'unavailable', message: 'Busy right now' });
    }
    // A body that is not the request message, and one over the size limit.
    const garbage = await binary(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff]));
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { code: string }).code).toBe('invalid_argument');
    const huge = await binary(new Uint8Array(8 * 1024 * 1024 + 1));
    expect(huge.status).toBe(429);
    expect(((await huge.json()) as { code: string }).code).toBe('resource_exhausted');
    // An unexpected failure is logged and answered as Internal, with nothing of its message.
    const crash = await binary(toBinary(AuthenticateRequestSchema, create(AuthenticateRequestSchema, { token: 'crash' })));
    expect(crash.status).toBe(500);
    expect(await crash.json()).toEqual({ code: 'internal', message: 'Internal error' });
    // A method the service does not have.
    const unknown = await fetch(`${url}/parley.auth.v1.AuthService/Nothing`, {
      method: 'POST',
      headers: { 'content-type': 'application/proto', ...auth() },
      body: new Uint8Array(),
    });
    expect(unknown.status).toBe(404);
  });

  it('passes to the generic handler only what the lean one does not answer', async () => {
    const lean = createLeanUnaryHandler({ readMaxBytes: 1024, onUnexpected: () => {} });
    lean
      .recording(createConnectRouter())
      .service(AuthService, { authenticate: async () => ({ user: create(UserSchema, { id: 'lean' }) }) });
    const app = express();
    app.use(lean.middleware);
    app.use((_req, res) => {
      res.status(418).end();
    });
    const served = await serveApp(app);
    try {
      const path = `${served.url}/parley.auth.v1.AuthService/Authenticate`;
      const body = toBinary(AuthenticateRequestSchema, create(AuthenticateRequestSchema, { token: 't' })) as BodyInit;
      const ok = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/proto' }, body });
      expect(ok.status).toBe(200);
      expect(fromBinary(AuthenticateResponseSchema, new Uint8Array(await ok.arrayBuffer())).user?.id).toBe('lean');
      const passed = await Promise.all([
        fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
        fetch(path, { method: 'POST', headers: { 'content-type': 'application/proto', 'content-encoding': 'gzip' }, body }),
        fetch(path, { method: 'GET' }),
        fetch(`${served.url}/parley.auth.v1.AuthService/Login`, { method: 'POST', headers: { 'content-type': 'application/proto' }, body }),
      ]);
      expect(passed.map((r) => r.status)).toEqual([418, 418, 418, 418]);
    } finally {
      await served.close();
    }
  });

  it('answers /healthz always and /readyz only when its dependencies answer', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    healthy = false;
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { checks: Record<string, string> }).checks.database).toBe('error: down');
    healthy = true;
  });
});
