// `node services/auth/src/migrate.ts` (or `npm run migrate -w @parley/auth`): applies auth's pending
// migrations to its schema and exits, 0 when the schema is up to date, 1 when a migration failed.
// It reads only DATABASE_URL and AUTH_DB_SCHEMA, so a one-shot migration job needs nothing else; the
// migration lock lets it run beside replicas that still migrate at start.
import { commonVars, loadConfig } from '@parley/common/config.ts';
import { migrateCommand } from '@parley/common/service-main.ts';
import { authVars } from './config.ts';
import { MIGRATIONS_DIR } from './service.ts';

const config = loadConfig({ DATABASE_URL: commonVars.DATABASE_URL, AUTH_DB_SCHEMA: authVars.AUTH_DB_SCHEMA });
await migrateCommand('auth', { databaseUrl: config.DATABASE_URL, schema: config.AUTH_DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
