// Starts the chat service: validated config → database and migrations → server and the
// ChatbotDeleted worker; SIGTERM drains requests and jobs, then closes the pools.
import { loadConfig } from '@parley/common/config.ts';
import { createLogger } from '@parley/common/logger.ts';
import { ensureDatabase, migrate } from '@parley/common/migrations.ts';
import { runService } from '@parley/common/service.ts';
import { chatVars } from './config.ts';
import { createChatService, MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(chatVars);
const logger = createLogger('chat', config.LOG_LEVEL);

await ensureDatabase(config.DATABASE_URL);
await migrate({
  databaseUrl: config.DATABASE_URL,
  schema: config.CHAT_DB_SCHEMA,
  migrationsDir: MIGRATIONS_DIR,
  log: (line) => logger.info(line),
});
await runService({ name: 'chat', logger, port: config.PORT, build: () => createChatService(config, { logger }) });
