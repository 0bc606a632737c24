// `node services/chat/src/migrate.ts` (or `npm run migrate -w @parley/chat`): applies chat's pending
// migrations to its schema and exits, 0 when the schema is up to date, 1 when a migration failed.
// It reads only DATABASE_URL and CHAT_DB_SCHEMA, so a one-shot migration job needs nothing else; the
// migration lock lets it run beside replicas that still migrate at start.
import { commonVars, loadConfig } from '@parley/common/config.ts';
import { migrateCommand } from '@parley/common/service-main.ts';
import { chatVars } from './config.ts';
import { MIGRATIONS_DIR } from './service.ts';

const config = loadConfig({ DATABASE_URL: commonVars.DATABASE_URL, CHAT_DB_SCHEMA: chatVars.CHAT_DB_SCHEMA });
await migrateCommand('chat', { databaseUrl: config.DATABASE_URL, schema: config.CHAT_DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
