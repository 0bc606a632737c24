import { Code } from '@parley/common/rpc-errors.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { createLogger } from '@parley/common/logger.ts';
import { createRedis } from '@parley/common/redis.ts';
import { DEVELOPMENT_SERVICE_SECRET, signServiceToken } from '@parley/common/service-auth.ts';
import { serveApp } from '@parley/common/testing/serve.ts';
import { testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import { AuthService } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAuthConfig } from '../../src/config.ts';
import { createAuthService } from '../../src/service.ts';
import { expectRpcError, startAuth, type AuthHarness } from './harness.ts';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth();
});
afterAll(async () => {
  await h?.close();
});

describe('health endpoints', () => {
  it('/healthz answers ok', async () => {
    const res = await fetch(`${h.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz checks the database and Redis', async () => {
    const res = await fetch(`${h.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok' } });
  });

  it('answers unknown paths with a JSON 404 to a caller with service credentials, 401 to anyone else', async () => {
    const token = signServiceToken({ caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET });
    const res = await fetch(`${h.url}/nope`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'Not found' });
    expect((await fetch(`${h.url}/nope`)).status).toBe(401);
  });
});

describe('when the database is missing', () => {
  let url: string;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const { databaseUrl, redisUrl } = await testInfra();
    const missing = new URL(databaseUrl);
    missing.pathname = `/${uniqueName('missing')}`;
    const prefix = uniqueName('test');
    const parts = await createAuthService(
      readAuthConfig({ DATABASE_URL: missing.toString(), REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, AUTH_DB_SCHEMA: 'auth' }),
      { logger: createLogger('auth-test', 'silent') },
    );
    const server = await serveApp(parts.app);
    url = server.url;
    stop = async () => {
      await server.close();
      for (const close of parts.closers) await close();
      const redis = createRedis(redisUrl);
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    };
  });
  afterAll(async () => {
    await stop?.();
  });

  it('/readyz reports not ready, naming the failing check', async () => {
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).toBe('not ready');
    expect(body.checks.redis).toBe('ok');
    expect(body.checks.database).toMatch(/^error: /);
  });

  it('RPCs fail with a generic INTERNAL error, never internals', async () => {
    const client = createServiceClient(AuthService, url);
    await expectRpcError(client.authenticate({ token: 'abc' }), Code.Internal, 'Internal error');
    await expectRpcError(
      client.register({ email: 'ada@example.com', password: 'secret1', passwordConfirmation: 'secret1' }),
      Code.Internal,
      'Internal error',
    );
  });
});
