// The two entry points every service has: main.ts (bring its schema up to date, then serve until
// SIGTERM) and migrate.ts (`npm run migrate`: bring the schema up to date and exit). Each service
// passes its name, its schema and how to build it from its validated config.
import { createLogger, type Logger } from './logger.ts';
import { ensureDatabase, migrate } from './migrations.ts';
import { runService, type ServiceParts } from './service.ts';

export interface ServiceSchema {
  databaseUrl: string;
  schema: string;
  migrationsDir: string;
}

/** Creates the database if needed, applies pending migrations, then serves; a failure exits 1. */
export async function migrateAndServe(opts: {
  name: string;
  logLevel: string;
  port: number;
  /** The interface to listen on (SERVICE_HOST): loopback by default, 0.0.0.0 in a container. */
  host: string;
  database: ServiceSchema;
  build: (logger: Logger) => Promise<ServiceParts>;
}): Promise<void> {
  const logger = createLogger(opts.name, opts.logLevel);
  try {
    await migrateSchema(opts.database, (line) => logger.info(line));
    await runService({ name: opts.name, logger, port: opts.port, host: opts.host, build: () => opts.build(logger) });
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
