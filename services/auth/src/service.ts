// Builds the auth service: database, Redis, the producers, the mailer, the PasswordResetRequested
// worker and the AccountDeleted relay (with the workers), and the Express app serving the
// AuthService, the WorkspaceService and the ApiKeyService (to the gateway alone).
// main.ts runs it; other packages' tests start it in-process the same way.
import { fileURLToPath } from 'node:url';
import type { Worker } from 'bullmq';
import { accessChangePublisher } from '@parley/common/access-changes.ts';
import { prismaAdapter } from '@parley/common/database.ts';
import { createServiceApp, dataReadiness } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import type { ServiceParts } from '@parley/common/service.ts';
import { PasswordResetRequestedSchema } from '@parley/proto/parley/events/v1/password_reset_requested_pb.js';
import { UserRegisteredSchema } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import { WorkspaceCreatedSchema } from '@parley/proto/parley/events/v1/workspace_created_pb.js';
import type { AuthConfig } from './config.ts';
import { startAccountDeletedRelay } from './accounts/account-deleted.outbox.ts';
import { createAccountDeletedProducers, publishAccountDeleted } from './accounts/account-deleted.publisher.ts';
import { createRegistrationThrottle } from './accounts/registration-throttle.ts';
import { publishUserRegistered } from './accounts/user-registered.publisher.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';
import { createNotices } from './mail/notices.ts';
import { mailEndpointDisabled } from './workspaces/webhook-endpoint-disabled.ts';
import { mailHandoffRequested } from './workspaces/handoff-requested.ts';
import { startHandoffRequestedWorker } from './workspaces/handoff-requested.job.ts';
import { startWebhookEndpointDisabledWorker } from './workspaces/webhook-endpoint-disabled.job.ts';
import { mailTestRunRegressed } from './workspaces/test-run-regressed.ts';
import { startTestRunRegressedWorker } from './workspaces/test-run-regressed.job.ts';
import { issueReset, type IssueResetDeps } from './password-reset/issue-reset.ts';
import { startPasswordResetRequestedWorker } from './password-reset/password-reset-requested.job.ts';
import { publishPasswordResetRequested } from './password-reset/password-reset-requested.publisher.ts';
import { createPasswordResetThrottle } from './password-reset/password-reset-throttle.ts';
import { authRoutes, type AuthRpcDeps } from './rpc.ts';
import { createLoginThrottle } from './core/login-throttle.ts';
import { createTwoFactorKeys } from './two-factor/two-factor-keys.ts';
import { createTwoFactorThrottle } from './two-factor/two-factor-throttle.ts';
import { publishWorkspaceCreated } from './workspaces/workspace-created.publisher.ts';
import { startRetentionSweptWorker } from './workspaces/retention-swept.job.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export interface AuthServiceParts extends ServiceParts {
  /** What the RPCs run with (tests call the use cases directly). */
  deps: AuthRpcDeps;
  /** What the PasswordResetRequested job runs with. */
  issueResetDeps: IssueResetDeps;
  mailer: Mailer;
  /** The PasswordResetRequested worker, when workers were started. */
  passwordResetRequestedWorker?: Worker;
  /** Mails a workspace's owners when one of its webhook endpoints is disabled, when workers were started. */
  webhookEndpointDisabledWorker?: Worker;
  /** Mails a workspace's agents when a visitor waits for a person, when workers were started. */
  handoffRequestedWorker?: Worker;
  testRunRegressedWorker?: Worker;
  retentionSweptWorker?: Worker;
}

export async function createAuthService(config: AuthConfig, opts: { logger: Logger; workers?: boolean }): Promise<AuthServiceParts> {
  const { logger } = opts;
  const db = new PrismaClient({
    adapter: prismaAdapter({ databaseUrl: config.DATABASE_URL, schema: config.AUTH_DB_SCHEMA, poolSize: config.DATABASE_POOL_MAX }),
  });
  const redis = createRedis(config.REDIS_URL);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  const prefix = config.QUEUE_PREFIX;
  const userRegistered = createProducer(redis, QUEUES.userRegistered, UserRegisteredSchema, { prefix });
  const passwordResetRequested = createProducer(redis, QUEUES.passwordResetRequested, PasswordResetRequestedSchema, { prefix });
  const workspaceCreated = createProducer(redis, QUEUES.workspaceCreated, WorkspaceCreatedSchema, { prefix });
  const accountDeleted = createAccountDeletedProducers(redis, prefix);
  const keys = redisKeys(prefix);
  const mailer = createMailer(config, logger);
  const notices = createNotices(mailer, logger);

  const deps: AuthRpcDeps = {
    db,
    logger,
    notices,
    publicUrl: config.PUBLIC_URL,
    sessionTtlSeconds: config.SESSION_TTL_SECONDS,
    twoFactorKeys: createTwoFactorKeys(config.TWO_FACTOR_ENCRYPTION_KEY),
    twoFactorChallengeTtlSeconds: config.TWO_FACTOR_CHALLENGE_TTL_SECONDS,
    twoFactorThrottle: createTwoFactorThrottle({
      redis,
      keys,
      maxFailuresPerAccount: config.TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerIp: config.TWO_FACTOR_MAX_FAILURES_PER_IP,
      windowSeconds: config.TWO_FACTOR_FAILURE_WINDOW_SECONDS,
    }),
    throttle: createLoginThrottle({
      redis,
      keys,
      maxFailuresPerIpAndAccount: config.LOGIN_MAX_FAILURES_PER_IP_AND_ACCOUNT,
      maxFailuresPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
      maxFailuresPerAccount: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      windowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
    }),
    registrationThrottle: createRegistrationThrottle({
      redis,
      keys,
      maxPerIp: config.REGISTRATIONS_MAX_PER_IP,
      windowSeconds: config.REGISTRATIONS_WINDOW_SECONDS,
    }),
    passwordResetThrottle: createPasswordResetThrottle({
      redis,
      keys,
      maxPerEmail: config.PASSWORD_RESET_MAX_PER_EMAIL,
      maxPerIp: config.PASSWORD_RESET_MAX_PER_IP,
      windowSeconds: config.PASSWORD_RESET_WINDOW_SECONDS,
    }),
    publishUserRegistered: (user) => publishUserRegistered(userRegistered, user),
    publishPasswordResetRequested: (request) => publishPasswordResetRequested(passwordResetRequested, request),
    publishAccountDeleted: (account) => publishAccountDeleted(accountDeleted, account),
    publishWorkspaceCreated: (workspace) => publishWorkspaceCreated(workspaceCreated, workspace),
    announceAccessChange: accessChangePublisher(redis, prefix, logger),
    ssoKey: config.SSO_ENCRYPTION_KEY,
    ssoSignInTtlSeconds: config.SSO_SIGN_IN_TTL_SECONDS,
    ssoAllowPrivateAddresses: config.SSO_ALLOW_PRIVATE_ADDRESSES,
  };
  const issueResetDeps: IssueResetDeps = {
    db,
    mailer,
    logger,
    publicUrl: config.PUBLIC_URL,
    ttlSeconds: config.PASSWORD_RESET_TTL_SECONDS,
  };

  // With the workers: a process that sends reset mails also announces deletions its owner's call could not.
  const workers = opts.workers !== false;
  const passwordResetRequestedWorker = workers
    ? startPasswordResetRequestedWorker({ redis, logger, prefix, issueReset: (input) => issueReset(issueResetDeps, input) })
    : undefined;
  const stopRelay = workers ? startAccountDeletedRelay(db, deps.publishAccountDeleted, logger) : undefined;
  // A webhook endpoint the chatbot service disabled: the workspace's owners are mailed (ADR 32).
  const webhookEndpointDisabledWorker = workers
    ? startWebhookEndpointDisabledWorker({
        redis,
        logger,
        prefix,
        mailOwners: (input) => mailEndpointDisabled({ db, mailer, logger, publicUrl: config.PUBLIC_URL }, input),
      })
    : undefined;
  // A visitor waiting for a person: the workspace's agents who chose to be told are mailed (ADR 34).
  const handoffRequestedWorker = workers
    ? startHandoffRequestedWorker({
        redis,
        logger,
        prefix,
        mailAgents: (input) => mailHandoffRequested({ db, mailer, logger, publicUrl: config.PUBLIC_URL }, input),
      })
    : undefined;

  // A test run with regressions of a chatbot whose owner asked for the mail: the owners are mailed (ADR 61).
  const testRunRegressedWorker = workers
    ? startTestRunRegressedWorker({
        redis,
        logger,
        prefix,
        mailOwners: (input) => mailTestRunRegressed({ db, mailer, logger, publicUrl: config.PUBLIC_URL }, input),
      })
    : undefined;

  // What a retention sweep deleted, audited with its counts (ADR 48).
  const retentionSweptWorker = workers ? startRetentionSweptWorker({ redis, logger, prefix, db }) : undefined;

  const app = createServiceApp({
    logger,
    trust: { secret: config.SERVICE_SECRET, previousSecret: config.SERVICE_SECRET_PREVIOUS, callers: ['gateway'] },
    routes: authRoutes(deps),
    readiness: dataReadiness(db, redis),
  });

  // The worker takes no new job (it finishes the one in hand) and the relay stops.
  const stopBackground = async () => {
    stopRelay?.();
    await Promise.all([
      passwordResetRequestedWorker?.close(),
      webhookEndpointDisabledWorker?.close(),
      handoffRequestedWorker?.close(),
      testRunRegressedWorker?.close(),
      retentionSweptWorker?.close(),
    ]);
  };

  return {
    app,
    deps,
    issueResetDeps,
    mailer,
    passwordResetRequestedWorker,
    webhookEndpointDisabledWorker,
    handoffRequestedWorker,
    testRunRegressedWorker,
    retentionSweptWorker,
    background: [stopBackground],
    closers: [
      // The worker first: close() waits for the jobs in flight to finish before it resolves.
      stopBackground,
      // Notices already committed to go out are sent before the mailer closes.
      () => notices.settled(),
      async () => mailer.close(),
      () => Promise.all([userRegistered, passwordResetRequested, workspaceCreated, ...accountDeleted].map((p) => p.close())),
      () => redis.quit(),
      () => db.$disconnect(),
    ],
  };
}
