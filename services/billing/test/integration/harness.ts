// Starts billing in-process for one test file: its own Postgres schema and BullMQ queue prefix, so
// test files run in parallel without seeing each other's data.
import type { Worker, Job } from 'bullmq';
import { createLogger } from '@parley/common/logger.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import { createTestSchema, testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import { serveApp } from '@parley/common/testing/serve.ts';
import { readBillingConfig, type BillingConfig } from '../../src/config.ts';
import { createBillingService, MIGRATIONS_DIR, type BillingServiceParts } from '../../src/service.ts';

export const logger = createLogger('billing-test', 'silent');

export interface Billing {
  config: BillingConfig;
  parts: BillingServiceParts;
  url: string;
  /** A separate Redis connection for producers and queue inspection. */
  redis: Redis;
  stop: () => Promise<void>;
}

export async function startBilling(opts: { workers?: boolean } = {}): Promise<Billing> {
  const { redisUrl } = await testInfra();
  const db = await createTestSchema('billing', MIGRATIONS_DIR);
  const config = readBillingConfig({ ...process.env, REDIS_URL: redisUrl, DATABASE_URL: db.databaseUrl, BILLING_DB_SCHEMA: db.schema, QUEUE_PREFIX: uniqueName('test') });
  const parts = await createBillingService(config, { logger, workers: opts.workers });
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

/** Resolves when `worker` has finished the job with this id, completed or failed. */
export function jobSettled(worker: Worker, jobId: string): Promise<{ state: 'completed' | 'failed'; job: Job; error?: Error }> {
  return new Promise((resolve) => {
    const onCompleted = (job: Job) => {
      if (job.id !== jobId) return;
      off();
      resolve({ state: 'completed', job });
    };
    const onFailed = (job: Job | undefined, error: Error) => {
      if (job?.id !== jobId) return;
      off();
      resolve({ state: 'failed', job, error });
    };
    const off = () => {
      worker.off('completed', onCompleted);
      worker.off('failed', onFailed);
    };
    worker.on('completed', onCompleted);
    worker.on('failed', onFailed);
  });
}

export async function counts(parts: BillingServiceParts, userId: string) {
  const [accounts, ledgerEntries] = await Promise.all([
    parts.prisma.account.count({ where: { userId } }),
    parts.prisma.creditLedgerEntry.count({ where: { userId } }),
  ]);
  return { accounts, ledgerEntries };
}
