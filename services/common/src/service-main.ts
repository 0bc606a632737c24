// The two entry points every service has: main.ts (bring its schema up to date unless
// MIGRATE_ON_START=false, then serve until SIGTERM) and migrate.ts (`node services/<name>/src/migrate.ts`:
// bring the schema up to date and exit, for a one-shot job before a rollout). Each service passes its
// name, its schema and how to build it from its validated config.
import { shutdownSettings } from './lifecycle.ts';
import { createLogger, type Logger } from './logger.ts';
import { ensureDatabase, migrate } from './migrations.ts';
import { runService, type ServiceParts } from './service.ts';

export interface ServiceSchema {
  databaseUrl: string;
  schema: string;
  migrationsDir: string;
}

/** What every service's main.ts passes from its validated config (commonVars). */
export interface ProcessSettings {
  LOG_LEVEL: string;
  SERVICE_HOST: string;
  MIGRATE_ON_START: boolean;
  SHUTDOWN_DRAIN_MS: number;
  SHUTDOWN_TIMEOUT_MS: number;
}

/**
 * Listens, creates the database if needed and applies pending migrations (unless MIGRATE_ON_START
 * is false: a migration job ran them), then builds the service and serves; a failure exits 1.
 */
export async function migrateAndServe(opts: {
  name: string;
  port: number;
  /** LOG_LEVEL, SERVICE_HOST (loopback by default, 0.0.0.0 in a container), MIGRATE_ON_START, SHUTDOWN_*. */
  settings: ProcessSettings;
  database: ServiceSchema;
  build: (logger: Logger) => Promise<ServiceParts>;
}): Promise<void> {
  const { settings } = opts;
  const logger = createLogger(opts.name, settings.LOG_LEVEL);
  try {
    await runService({
      name: opts.name,
      logger,
      port: opts.port,
      host: settings.SERVICE_HOST,
      shutdown: shutdownSettings(settings),
      prepare: async () => {
        if (settings.MIGRATE_ON_START) await migrateSchema(opts.database, (line) => logger.info(line));
        else logger.info('MIGRATE_ON_START=false: migrations are left to the migration job');
      },
      build: () => opts.build(logger),
    });
  } catch (err) {
    logger.fatal({ err }, `${opts.name} service failed to start`);
    process.exit(1);
  }
}

/** `npm run migrate` for one service: applies its pending migrations, says what it did, exits 1 on failure. */
export async function migrateCommand(name: string, database: ServiceSchema): Promise<void> {
  try {
    const applied = await migrateSchema(database, (line) => console.log(line));
    console.log(applied.length ? `${name}: ${applied.length} migration(s) applied` : `${name}: schema up to date`);
  } catch (err) {
    console.error(`${name}: migration failed: ${(err as Error).message}`);
    process.exit(1);
  }
}

async function migrateSchema(database: ServiceSchema, log: (line: string) => void) {
  await ensureDatabase(database.databaseUrl);
  return migrate({ databaseUrl: database.databaseUrl, schema: database.schema, migrationsDir: database.migrationsDir, log });
}
