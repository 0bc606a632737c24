// Builds the auth service: database, Redis, the UserRegistered producer and the Express app.
// main.ts runs it; other packages' tests start it in-process the same way.
import { fileURLToPath } from 'node:url';
import { prismaAdapter } from '@parley/common/database.ts';
import { createServiceApp, dataReadiness } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import type { ServiceParts } from '@parley/common/service.ts';
import { UserRegisteredSchema } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import type { AuthConfig } from './config.ts';
import { createRegistrationThrottle } from './accounts/registration-throttle.ts';
import { publishUserRegistered } from './accounts/user-registered.publisher.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { authRoutes } from './rpc.ts';
import { createLoginThrottle } from './sessions/login-throttle.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function createAuthService(config: AuthConfig, opts: { logger: Logger }): Promise<ServiceParts> {
  const { logger } = opts;
  const db = new PrismaClient({ adapter: prismaAdapter({ databaseUrl: config.DATABASE_URL, schema: config.AUTH_DB_SCHEMA }) });
  const redis = createRedis(config.REDIS_URL);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  const userRegistered = createProducer(redis, QUEUES.userRegistered, UserRegisteredSchema, { prefix: config.QUEUE_PREFIX });
  const throttle = createLoginThrottle({
    redis,
    keyPrefix: `${config.QUEUE_PREFIX}:auth`,
    maxFailuresPerIpAndAccount: config.LOGIN_MAX_FAILURES_PER_IP_AND_ACCOUNT,
    maxFailuresPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
    maxFailuresPerAccount: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
    windowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
  });
  const registrationThrottle = createRegistrationThrottle({
    redis,
    keyPrefix: `${config.QUEUE_PREFIX}:auth`,
    maxPerIp: config.REGISTRATIONS_MAX_PER_IP,
    windowSeconds: config.REGISTRATIONS_WINDOW_SECONDS,
  });

  const app = createServiceApp({
    logger,
    trust: { secret: config.SERVICE_SECRET, callers: ['gateway'] },
    routes: authRoutes({
      db,
      throttle,
      registrationThrottle,
      logger,
      sessionTtlSeconds: config.SESSION_TTL_SECONDS,
      publishUserRegistered: (user) => publishUserRegistered(userRegistered, user),
    }),
    readiness: dataReadiness(db, redis),
  });

  return {
    app,
    closers: [() => userRegistered.close(), () => redis.quit(), () => db.$disconnect()],
  };
}
