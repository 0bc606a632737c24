// Starts the billing service: validated config → database and migrations → server and workers;
// SIGTERM drains requests, lets jobs in flight finish, then closes the pools.
import { migrateAndServe } from '@parley/common/service-main.ts';
import { loadBillingConfig } from './config.ts';
import { createBillingService, MIGRATIONS_DIR } from './service.ts';

const config = loadBillingConfig();
await migrateAndServe({
  name: 'billing',
  port: config.PORT,
  settings: config,
  database: { databaseUrl: config.DATABASE_URL, schema: config.BILLING_DB_SCHEMA, migrationsDir: MIGRATIONS_DIR },
  build: (logger) => createBillingService(config, { logger, workers: config.WORKERS === 'on' }),
});
