// Starts the chatbot service: validated config → database and migrations → server and workers;
// SIGTERM drains requests, lets jobs in flight finish, then closes the pools.
import { loadConfig } from '@parley/common/config.ts';
import { createLogger } from '@parley/common/logger.ts';
import { ensureDatabase, migrate } from '@parley/common/migrations.ts';
import { runService } from '@parley/common/service.ts';
import { chatbotVars } from './config.ts';
import { createChatbotService, MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(chatbotVars);
const logger = createLogger('chatbot', config.LOG_LEVEL);

await ensureDatabase(config.DATABASE_URL);
await migrate({
  databaseUrl: config.DATABASE_URL,
  schema: config.CHATBOT_DB_SCHEMA,
  migrationsDir: MIGRATIONS_DIR,
  log: (line) => logger.info(line),
});
await runService({ name: 'chatbot', logger, port: config.PORT, build: () => createChatbotService(config, { logger }) });
