// Starts the chatbot service: validated config → database and migrations → server and workers;
// SIGTERM drains requests, lets jobs in flight finish, then closes the pools.
import { loadConfig } from '@parley/common/config.ts';
import { migrateAndServe } from '@parley/common/service-main.ts';
import { chatbotVars } from './config.ts';
import { createChatbotService, MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(chatbotVars);
await migrateAndServe({
  name: 'chatbot',
  port: config.PORT,
  settings: config,
  database: { databaseUrl: config.DATABASE_URL, schema: config.CHATBOT_DB_SCHEMA, migrationsDir: MIGRATIONS_DIR },
  build: (logger) => createChatbotService(config, { logger, workers: config.WORKERS === 'on' }),
});
