// `npm run migrate`: applies billing's pending migrations to its schema and exits.
import { loadConfig } from '@parley/common/config.ts';
import { migrateCommand } from '@parley/common/service-main.ts';
import { billingVars } from './config.ts';
import { MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(billingVars);
await migrateCommand('billing', { databaseUrl: config.DATABASE_URL, schema: config.BILLING_DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
