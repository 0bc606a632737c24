// `npm run migrate`: applies chat's pending migrations to its schema and exits.
import { loadConfig } from '@parley/common/config.ts';
import { ensureDatabase, migrate } from '@parley/common/migrations.ts';
import { chatVars } from './config.ts';
import { MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(chatVars);
try {
  await ensureDatabase(config.DATABASE_URL);
  const applied = await migrate({
    databaseUrl: config.DATABASE_URL,
    schema: config.CHAT_DB_SCHEMA,
    migrationsDir: MIGRATIONS_DIR,
    log: (line) => console.log(line),
  });
  console.log(applied.length ? `chat: ${applied.length} migration(s) applied` : 'chat: schema up to date');
} catch (err) {
  console.error(`chat: migration failed: ${(err as Error).message}`);
  process.exit(1);
}
