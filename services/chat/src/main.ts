// Starts the chat service: validated config → database and migrations → server and the
// ChatbotDeleted and AccountDeleted workers; SIGTERM drains requests and jobs, then closes the pools.
import { loadConfig } from '@parley/common/config.ts';
import { migrateAndServe } from '@parley/common/service-main.ts';
import { chatVars } from './config.ts';
import { createChatService, MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(chatVars);
await migrateAndServe({
  name: 'chat',
  port: config.PORT,
  settings: config,
  database: { databaseUrl: config.DATABASE_URL, schema: config.CHAT_DB_SCHEMA, migrationsDir: MIGRATIONS_DIR },
  build: (logger) => createChatService(config, { logger, workers: config.WORKERS === 'on' }),
});
