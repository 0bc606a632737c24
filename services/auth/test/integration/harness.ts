// Starts the auth service in-process, exactly as other packages' tests do, against a fresh schema
// and its own queue/key prefix, so test files can run in parallel without seeing each other's data.
// Mail goes to a real SMTP server started for the test (`smtp: true`), else to a temporary outbox.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { prismaAdapter } from '@parley/common/database.ts';
import { createLogger } from '@parley/common/logger.ts';
import { QUEUES, type QueueName } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { createTestSchema, testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import { startSmtpCatcher, type SmtpCatcher } from '@parley/common/testing/smtp-catcher.ts';
import { serveApp } from '@parley/common/testing/serve.ts';
import { ApiKeyService } from '@parley/proto/parley/auth/v1/api_keys_pb.js';
import { AuthService } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { WorkspaceService } from '@parley/proto/parley/auth/v1/workspaces_pb.js';
import { expect } from 'vitest';
import { readAuthConfig } from '../../src/config.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { createAuthService, MIGRATIONS_DIR } from '../../src/service.ts';

export const TEST_PUBLIC_URL = 'http://parley.test:8080';

export async function startAuth(env: Record<string, string> = {}, opts: { smtp?: boolean; workers?: boolean } = {}) {
  const schema = await createTestSchema('auth', MIGRATIONS_DIR);
  const { redisUrl } = await testInfra();
  const prefix = uniqueName('test');
  const smtp: SmtpCatcher | undefined = opts.smtp ? await startSmtpCatcher() : undefined;
  const outboxDir = await mkdtemp(join(tmpdir(), 'parley-auth-outbox-'));
  const config = readAuthConfig({
    ...process.env,
    DATABASE_URL: schema.databaseUrl,
    REDIS_URL: redisUrl,
    AUTH_DB_SCHEMA: schema.schema,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    PUBLIC_URL: TEST_PUBLIC_URL,
    MAIL_OUTBOX_DIR: outboxDir,
    SMTP_URL: smtp?.url ?? '',
    ...env,
  });
  const parts = await createAuthService(config, { logger: createLogger('auth-test', 'silent'), workers: opts.workers });
  const server = await serveApp(parts.app);
  const client = createServiceClient(AuthService, server.url, { timeoutMs: 15_000 });
  const workspaces = createServiceClient(WorkspaceService, server.url, { timeoutMs: 15_000 });
  const apiKeys = createServiceClient(ApiKeyService, server.url, { timeoutMs: 15_000 });
  const db = new PrismaClient({ adapter: prismaAdapter({ databaseUrl: schema.databaseUrl, schema: schema.schema }) });
  const redis = createRedis(redisUrl);
  const queue = new Queue(QUEUES.userRegistered, { connection: redis, prefix });
  const extraQueues: Queue[] = [];

  return {
    url: server.url,
    client,
    workspaces,
    apiKeys,
    config,
    db,
    redis,
    prefix,
    queue,
    parts,
    smtp,
    outboxDir,
    /** A queue of this test's prefix, closed (and emptied) with the harness. */
    queueOf(name: QueueName) {
      const q = new Queue(name, { connection: redis, prefix });
      extraQueues.push(q);
      return q;
    },
    async close() {
      await server.close();
      for (const close of parts.closers) await close();
      await smtp?.close();
      for (const q of [queue, ...extraQueues]) {
        await q.obliterate({ force: true });
        await q.close();
      }
      await rm(outboxDir, { recursive: true, force: true });
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      await db.$disconnect();
      await schema.drop();
    },
  };
}

export type AuthHarness = Awaited<ReturnType<typeof startAuth>>;

/** Asserts that a call failed with the given Connect code and user-facing message. */
export async function expectRpcError(call: Promise<unknown>, code: Code, message: string | RegExp): Promise<void> {
  const err = await call.then(
    () => {
      throw new Error(`expected ${Code[code]} "${message}", but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectError);
  expect(Code[(err as ConnectError).code]).toBe(Code[code]);
  if (typeof message === 'string') expect((err as ConnectError).rawMessage).toBe(message);
  else expect((err as ConnectError).rawMessage).toMatch(message);
}

let counter = 0;
export const uniqueEmail = (tag = 'user') => `${tag}.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`;
