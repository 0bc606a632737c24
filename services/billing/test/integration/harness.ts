// Starts billing in-process for one test file: its own Postgres schema and BullMQ queue prefix, so
// test files run in parallel without seeing each other's data.
import { createLogger } from '@parley/common/logger.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import { createTestSchema, testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import { serveApp } from '@parley/common/testing/serve.ts';
import { readBillingConfig, type BillingConfig } from '../../src/config.ts';
import { createBillingService, MIGRATIONS_DIR, type BillingServiceParts } from '../../src/service.ts';
export { jobSettled } from '@parley/common/testing/jobs.ts';

export const logger = createLogger('billing-test', 'silent');

export interface Billing {
  config: BillingConfig;
  parts: BillingServiceParts;
  url: string;
  /** A separate Redis connection for producers and queue inspection. */
  redis: Redis;
  stop: () => Promise<void>;
}

/** `env` adds to or overrides the environment billing's config is read from (e.g. STRIPE_SECRET_KEY). */
export async function startBilling({
  env,
  ...opts
}: { workers?: boolean; creditHoldSweepMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<Billing> {
  const { redisUrl } = await testInfra();
  const db = await createTestSchema('billing', MIGRATIONS_DIR);
  const config = readBillingConfig({
    ...process.env,
    REDIS_URL: redisUrl,
    DATABASE_URL: db.databaseUrl,
    BILLING_DB_SCHEMA: db.schema,
    QUEUE_PREFIX: uniqueName('test'),
    ...env,
  });
  const parts = await createBillingService(config, { logger, ...opts });
  const server = await serveApp(parts.app);
  const redis = createRedis(redisUrl);
  return {
    config,
    parts,
    url: server.url,
    redis,
    stop: async () => {
      await server.close();
      for (const close of parts.closers) await close();
      // Remove this file's queue keys; the prefix is unique to it.
      const keys = await redis.keys(`${config.QUEUE_PREFIX}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      await db.drop();
    },
  };
}

export async function counts(parts: BillingServiceParts, ownerId: string) {
  const [accounts, ledgerEntries] = await Promise.all([
    parts.prisma.account.count({ where: { ownerId } }),
    parts.prisma.creditLedgerEntry.count({ where: { ownerId } }),
  ]);
  return { accounts, ledgerEntries };
}
