import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { AuthService, UserSchema } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentRequestId, runWithRequestId } from '../src/context.ts';
import { createServiceApp } from '../src/http.ts';
import { createLogger } from '../src/logger.ts';
import { createServiceClient } from '../src/rpc-client.ts';
import { invalid, unavailableToUser, USER_MESSAGE_HEADER } from '../src/rpc-errors.ts';
import { serveApp } from '../src/testing/serve.ts';

let url: string;
let close: () => Promise<void>;
let healthy = true;

beforeAll(async () => {
  const app = createServiceApp({
    logger: createLogger('test', 'silent'),
    readiness: [{ name: 'database', check: async () => { if (!healthy) throw new Error('down'); } }],
    routes: (router) =>
      router.service(AuthService, {
        async authenticate(req) {
          if (req.token === 'slow') await new Promise((r) => setTimeout(r, 500));
          if (req.token === 'crash') throw new Error('secret internals');
          if (req.token === 'bad') throw invalid('Token is malformed');
          if (req.token === 'busy') throw unavailableToUser('Busy right now');
          if (req.token === 'big') return { user: create(UserSchema, { id: '2', name: 'é'.repeat(300_000) }) };
          return { user: create(UserSchema, { id: '1', name: currentRequestId() ?? '' }) };
        },
        async register() { throw new Error('unused'); },
        async login() { throw new Error('unused'); },
        async logout() { return {}; },
      }),
  });
  ({ url, close } = await serveApp(app));
});

afterAll(() => close());

describe('service app and clients', () => {
  it('carries the caller request id into the service', async () => {
    const client = createServiceClient(AuthService, url);
    const res = await runWithRequestId('req-abc-123', () => client.authenticate({ token: 't' }));
    expect(res.user?.name).toBe('req-abc-123');
  });

  it('enforces the call deadline', async () => {
    const client = createServiceClient(AuthService, url, { timeoutMs: 100 });
    await expect(client.authenticate({ token: 'slow' })).rejects.toMatchObject({ code: Code.DeadlineExceeded });
  });

  it('passes business errors through and hides unexpected ones', async () => {
    const client = createServiceClient(AuthService, url);
    await expect(client.authenticate({ token: 'bad' })).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: 'Token is malformed' });
    const err = await client.authenticate({ token: 'crash' }).catch((e: ConnectError) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Internal);
    expect((err as ConnectError).rawMessage).toBe('Internal error');
  });

  it('carries error metadata and large answers through unary calls', async () => {
    const client = createServiceClient(AuthService, url);
    const err = await client.authenticate({ token: 'busy' }).catch((e: ConnectError) => e);
    expect(err).toMatchObject({ code: Code.Unavailable, rawMessage: 'Busy right now' });
    expect((err as ConnectError).metadata.get(USER_MESSAGE_HEADER)).toBe('true');
    const big = await client.authenticate({ token: 'big' });
    expect(big.user?.name).toBe('é'.repeat(300_000));
  });

  it('cancels a call when its signal aborts, and reports an unreachable service as unavailable', async () => {
    const client = createServiceClient(AuthService, url);
    const abort = new AbortController();
    const call = client.authenticate({ token: 'slow' }, { signal: abort.signal });
    setTimeout(() => abort.abort(), 20);
    await expect(call).rejects.toMatchObject({ code: Code.Canceled });
    const aborted = AbortSignal.abort();
    await expect(client.authenticate({ token: 't' }, { signal: aborted })).rejects.toMatchObject({ code: Code.Canceled });
    // Nothing listens on port 9 (discard) here.
    const nowhere = createServiceClient(AuthService, 'http://127.0.0.1:9');
    await expect(nowhere.authenticate({ token: 't' })).rejects.toMatchObject({ code: Code.Unavailable });
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
