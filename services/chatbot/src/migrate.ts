// `npm run migrate`: applies chatbot's pending migrations to its schema and exits.
import { loadConfig } from '@parley/common/config.ts';
import { migrateCommand } from '@parley/common/service-main.ts';
import { chatbotVars } from './config.ts';
import { MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(chatbotVars);
await migrateCommand('chatbot', { databaseUrl: config.DATABASE_URL, schema: config.CHATBOT_DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
