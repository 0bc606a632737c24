// Starts the auth service: config → database (migrated) → server; stops gracefully on SIGTERM.
import { loadConfig } from '@parley/common/config.ts';
import { migrateAndServe } from '@parley/common/service-main.ts';
import { authVars } from './config.ts';
import { createAuthService, MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(authVars);
await migrateAndServe({
  name: 'auth',
  port: config.PORT,
  settings: config,
  database: { databaseUrl: config.DATABASE_URL, schema: config.AUTH_DB_SCHEMA, migrationsDir: MIGRATIONS_DIR },
  build: (logger) => createAuthService(config, { logger, workers: config.WORKERS === 'on' }),
});
