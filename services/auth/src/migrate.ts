// `npm run migrate`: applies auth's pending migrations to its schema and exits.
import { loadConfig } from '@parley/common/config.ts';
import { migrateCommand } from '@parley/common/service-main.ts';
import { authVars } from './config.ts';
import { MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(authVars);
await migrateCommand('auth', { databaseUrl: config.DATABASE_URL, schema: config.AUTH_DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
