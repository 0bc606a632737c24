import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { AuthService, UserSchema } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentRequestId, runWithRequestId } from '../src/context.ts';
import { createServiceApp } from '../src/http.ts';
import { createLogger } from '../src/logger.ts';
import { createServiceClient } from '../src/rpc-client.ts';
import { invalid } from '../src/rpc-errors.ts';
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
