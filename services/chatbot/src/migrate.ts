// `npm run migrate`: applies chatbot's pending migrations to its schema and exits.
import { loadConfig } from '@parley/common/config.ts';
import { ensureDatabase, migrate } from '@parley/common/migrations.ts';
import { chatbotVars } from './config.ts';
import { MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(chatbotVars);
try {
  await ensureDatabase(config.DATABASE_URL);
  const applied = await migrate({
    databaseUrl: config.DATABASE_URL,
    schema: config.CHATBOT_DB_SCHEMA,
    migrationsDir: MIGRATIONS_DIR,
    log: (line) => console.log(line),
  });
  console.log(applied.length ? `chatbot: ${applied.length} migration(s) applied` : 'chatbot: schema up to date');
} catch (err) {
  console.error(`chatbot: migration failed: ${(err as Error).message}`);
  process.exit(1);
}
