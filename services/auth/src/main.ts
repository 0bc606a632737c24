// Starts the auth service: config → database (migrated) → server; stops gracefully on SIGTERM.
import { loadConfig } from '@parley/common/config.ts';
import { createLogger } from '@parley/common/logger.ts';
import { ensureDatabase, migrate } from '@parley/common/migrations.ts';
import { runService } from '@parley/common/service.ts';
import { authVars } from './config.ts';
import { createAuthService, MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(authVars);
const logger = createLogger('auth', config.LOG_LEVEL);

try {
  await ensureDatabase(config.DATABASE_URL);
  await migrate({
    databaseUrl: config.DATABASE_URL,
    schema: config.AUTH_DB_SCHEMA,
    migrationsDir: MIGRATIONS_DIR,
    log: (line) => logger.info(line),
  });
  await runService({ name: 'auth', logger, port: config.PORT, build: () => createAuthService(config, { logger }) });
} catch (err) {
  logger.fatal({ err }, 'auth service failed to start');
  process.exit(1);
}
