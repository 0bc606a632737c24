// Builds the billing service from its configuration: database, Redis, the queue workers and the
// Express app. main.ts runs it; tests (billing's and the gateway's) start it in-process.
import { fileURLToPath } from 'node:url';
import type { Worker } from 'bullmq';
import type pg from 'pg';
import { mainPool, prismaAdapter } from '@parley/common/database.ts';
import { createServiceApp, dataReadiness } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import { runPeriodically } from '@parley/common/periodic.ts';
import { createRedis } from '@parley/common/redis.ts';
import type { ServiceParts } from '@parley/common/service.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { startAccountDeletedWorker } from './accounts/account-deleted.job.ts';
import { deleteAccountData } from './accounts/delete-account-data.ts';
import { openAccount, openWorkspaceAccount, type OpenAccountDeps } from './core/open-account.ts';
import { startUserRegisteredWorker } from './accounts/user-registered.job.ts';
import { startWorkspaceCreatedWorker } from './accounts/workspace-created.job.ts';
import type { BillingConfig } from './config.ts';
import { billingPermissions } from './permissions.ts';
import { billingRoutes } from './rpc.ts';
import { recordUsageBatch } from './usage/record-usage.ts';
import { checkCreditLow } from './usage/credit-low.ts';
import { publishPlanChanged } from './payments/plan-changed.ts';
import { webhookPublisher, type WebhookPublisher } from '@parley/common/webhook-publisher.ts';
import { startUsageRecordedWorker } from './usage/usage-recorded.job.ts';
import { applyStripeEvent } from './payments/apply-stripe-event.ts';
import type { PaymentsDeps } from './payments/payments-deps.ts';
import { createStripeClient } from './payments/stripe-client.ts';
import { startStripeEventsWorker } from './payments/stripe-events.job.ts';
import { creditHolds } from './credit/reserve-credit.ts';
import { loadCatalogue } from '@parley/common/models/catalogue.ts';
import { startModelPrices } from './core/model-prices.ts';
import { CREDIT_HOLD_SWEEP_MS, sweepCreditHolds } from './credit/sweep-credit-holds.ts';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import { publishUsageRetentionSwept, startUsageRetentionSweep } from './usage/usage-retention.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export interface BillingServiceParts extends ServiceParts {
  prisma: PrismaClient;
  /** Prisma's pool, which the credit hold's statement also uses (tests take holds directly). */
  pool: pg.Pool;
  /** The UserRegistered worker, when workers were started. */
  userRegisteredWorker?: Worker;
  /** The WorkspaceCreated worker, when workers were started. */
  workspaceCreatedWorker?: Worker;
  /** The UsageRecorded worker, when workers were started. */
  usageRecordedWorker?: Worker;
  /** The Stripe events worker, when workers were started. */
  stripeEventsWorker?: Worker;
  /** The AccountDeleted worker, when workers were started. */
  accountDeletedWorker?: Worker;
  /** What the payment use cases run with (tests call them directly). */
  payments: PaymentsDeps;
  /** The webhook events' publisher (credit.low, plan.changed), for tests that flush it. */
  webhookEvents: WebhookPublisher;
}

export async function createBillingService(
  config: BillingConfig,
  opts: { logger: Logger; workers?: boolean; creditHoldSweepMs?: number },
): Promise<BillingServiceParts> {
  const { logger } = opts;
  // One pool: Prisma's, and the credit hold's statement sent through the driver (credit/reserve-credit.ts).
  const pool = mainPool({ databaseUrl: config.DATABASE_URL, schema: config.BILLING_DB_SCHEMA, poolSize: config.DATABASE_POOL_MAX });
  const prisma = new PrismaClient({ adapter: prismaAdapter({ pool, schema: config.BILLING_DB_SCHEMA }) });
  const redis = createRedis(config.REDIS_URL);
  redis.on('error', (err) => logger.error({ err: err.message }, 'redis error'));
  const deps: OpenAccountDeps & { ownKeyFee: string } = {
    prisma,
    initialCredit: config.INITIAL_CREDIT,
    ownKeyFee: config.OWN_KEY_PLATFORM_FEE,
  };
  // The catalogue's prices, written before anything is priced (a malformed catalogue stops the service, naming its line).
  const stopModelPrices = await startModelPrices(prisma, loadCatalogue({ MODEL_CATALOGUE_FILE: config.MODEL_CATALOGUE_FILE }), logger);

  const workers = opts.workers !== false;
  const userRegisteredWorker = workers
    ? startUserRegisteredWorker({ redis, logger, prefix: config.QUEUE_PREFIX, openAccount: (ownerId) => openAccount(deps, ownerId) })
    : undefined;
  const workspaceCreatedWorker = workers
    ? startWorkspaceCreatedWorker({
        redis,
        logger,
        prefix: config.QUEUE_PREFIX,
        openWorkspaceAccount: (workspaceId) => openWorkspaceAccount(deps, workspaceId),
      })
    : undefined;
  // Webhook events of credit and plan, for subscribed owners only (ADR 32).
  const webhooks = webhookPublisher(redis, { prefix: config.QUEUE_PREFIX, logger });
  const creditLow = { prisma, redis, prefix: config.QUEUE_PREFIX, logger, webhooks, threshold: config.CREDIT_LOW_THRESHOLD };
  const usageRecordedWorker = workers
    ? startUsageRecordedWorker({
        redis,
        logger,
        prefix: config.QUEUE_PREFIX,
        recordUsageBatch: async (usages) => {
          const outcomes = await recordUsageBatch(deps, usages);
          await checkCreditLow(
            creditLow,
            usages.filter((_u, i) => outcomes[i] === 'recorded' || outcomes[i] === 'defaulted').map((u) => u.ownerId),
          );
          return outcomes;
        },
      })
    : undefined;
  // No STRIPE_SECRET_KEY: test mode, checkout sessions are local and nothing reaches Stripe.
  const payments: PaymentsDeps = { ...deps, stripe: await createStripeClient(config), logger, config };
  if (!payments.stripe) logger.info('no STRIPE_SECRET_KEY: checkout runs in test mode, no real payment is taken');
  const stripeEventsWorker = workers
    ? startStripeEventsWorker({
        redis,
        logger,
        prefix: config.QUEUE_PREFIX,
        applyStripeEvent: (input) =>
          applyStripeEvent({ ...payments, planChanged: (change) => publishPlanChanged(webhooks, change) }, input),
      })
    : undefined;
  const accountDeletedWorker = workers
    ? startAccountDeletedWorker({
        redis,
        logger,
        prefix: config.QUEUE_PREFIX,
        deleteAccountData: (ownerId) => deleteAccountData(payments, ownerId),
      })
    : undefined;

  // Expired credit holds are background work like the queue consumers: off with them.
  const sweepEveryMs = opts.creditHoldSweepMs ?? CREDIT_HOLD_SWEEP_MS;
  let creditHoldSweep: Promise<unknown> = Promise.resolve();
  const stopCreditHoldSweeper = workers
    ? runPeriodically(
        () =>
          (creditHoldSweep = sweepCreditHolds({ prisma }, config.HOLD_RECONCILE_GRACE_MS).then(
            (released) => released > 0 && logger.info({ released }, 'expired credit holds released'),
            (err: Error) => logger.error({ err: err.message }, 'sweeping expired credit holds failed; the next sweep retries'),
          )),
        { firstAfterMs: sweepEveryMs, everyMs: sweepEveryMs },
      )
    : undefined;

  // Usage detail past a workspace's window is deleted every hour (docs/adr/0059-retention-in-every-service.md).
  const retentionSwept = createProducer(redis, QUEUES.retentionSwept, RetentionSweptSchema, { prefix: config.QUEUE_PREFIX });
  const stopUsageRetention = workers
    ? startUsageRetentionSweep(prisma, logger, (ownerId, n) => publishUsageRetentionSwept(retentionSwept, ownerId, n, logger))
    : undefined;

  const app = createServiceApp({
    logger,
    trust: {
      secret: config.SERVICE_SECRET,
      previousSecret: config.SERVICE_SECRET_PREVIOUS,
      callers: ['gateway', 'chat', 'chatbot'],
      permissions: billingPermissions,
    },
    routes: billingRoutes(deps, payments, creditHolds({ ...deps, pool, holdTtlMs: config.CREDIT_HOLD_TTL_MS })),
    readiness: dataReadiness(prisma, redis),
  });

  // No new job and no new sweep; the job in hand and a sweep under way finish.
  const stopBackground = async () => {
    stopCreditHoldSweeper?.();
    stopUsageRetention?.();
    stopModelPrices();
    await Promise.all([
      creditHoldSweep,
      userRegisteredWorker?.close(),
      workspaceCreatedWorker?.close(),
      usageRecordedWorker?.close(),
      stripeEventsWorker?.close(),
      accountDeletedWorker?.close(),
    ]);
  };

  return {
    app,
    prisma,
    pool,
    userRegisteredWorker,
    workspaceCreatedWorker,
    usageRecordedWorker,
    stripeEventsWorker,
    accountDeletedWorker,
    payments,
    webhookEvents: webhooks,
    background: [stopBackground],
    closers: [
      // Workers first: close() waits for the jobs in flight to finish before it resolves.
      stopBackground,
      () => webhooks.close(),
      () => retentionSwept.close(),
      () => redis.quit(),
      () => prisma.$disconnect(),
    ],
  };
}
