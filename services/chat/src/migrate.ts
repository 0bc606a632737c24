// `npm run migrate`: applies chat's pending migrations to its schema and exits.
import { loadConfig } from '@parley/common/config.ts';
import { migrateCommand } from '@parley/common/service-main.ts';
import { chatVars } from './config.ts';
import { MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(chatVars);
await migrateCommand('chat', { databaseUrl: config.DATABASE_URL, schema: config.CHAT_DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
