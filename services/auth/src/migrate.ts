// Applies the auth service's migrations to its schema and exits (`npm run migrate -w @parley/auth`).
import { loadConfig } from '@parley/common/config.ts';
import { ensureDatabase, migrate } from '@parley/common/migrations.ts';
import { authVars } from './config.ts';
import { MIGRATIONS_DIR } from './service.ts';

const config = loadConfig(authVars);
try {
  await ensureDatabase(config.DATABASE_URL);
  const applied = await migrate({
    databaseUrl: config.DATABASE_URL,
    schema: config.AUTH_DB_SCHEMA,
    migrationsDir: MIGRATIONS_DIR,
    log: (line) => console.log(line),
  });
  console.log(applied.length ? `auth: ${applied.length} migration(s) applied` : 'auth: schema is up to date');
} catch (err) {
  console.error(`auth: migration failed: ${(err as Error).message}`);
  process.exit(1);
}
