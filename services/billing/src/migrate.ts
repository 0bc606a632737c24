// `npm run migrate`: applies billing's pending migrations to its schema and exits.
import { loadConfig } from '@parley/common/config.ts';
import { ensureDatabase, migrate } from '@parley/common/migrations.ts';
import { billingVars } from './config.ts';
import { MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(billingVars);
try {
  await ensureDatabase(config.DATABASE_URL);
  const applied = await migrate({
    databaseUrl: config.DATABASE_URL,
    schema: config.BILLING_DB_SCHEMA,
    migrationsDir: MIGRATIONS_DIR,
    log: (line) => console.log(line),
  });
  console.log(applied.length ? `billing: ${applied.length} migration(s) applied` : 'billing: schema up to date');
} catch (err) {
  console.error(`billing: migration failed: ${(err as Error).message}`);
  process.exit(1);
}
