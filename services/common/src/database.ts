// One Prisma client per service, bound to the service's own Postgres schema through the pg driver
// adapter (the `?schema=` URL parameter is ignored at run time, so the schema is passed explicitly).
// Every pool counts the statements its connections send (parley_sql_statements_total, metrics.ts):
// Prisma's queries and transactions' BEGIN and COMMIT alike, each query the driver sends counted once.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { counter } from './metrics.ts';
import { assertSchemaName } from './migrations.ts';

export interface DatabaseOptions {
  databaseUrl: string;
  schema: string;
  poolSize?: number;
  /** Further settings for every session of the pool (name → value), e.g. for a pool that serves one kind of query. */
  settings?: Record<string, string>;
}

const sqlStatements = counter(
  'parley_sql_statements_total',
  'Statements sent to PostgreSQL by the pools of this process (each query the driver sends, BEGIN and COMMIT included), by schema.',
  ['schema'],
);

/**
 * The size of a service's further pool as a share of DATABASE_POOL_MAX (the main pool's size), at
 * least one connection: chat's exchange pool is half of it and its export pool a fifth, the chatbot
 * service's search pool half (docs/adr/0025-process-lifecycle.md, the connection budget).
 */
export function poolShare(poolMax: number, share: number): number {
  return Math.max(1, Math.ceil(poolMax * share));
}

export function prismaAdapter({ databaseUrl, schema, poolSize = 10, settings = {} }: DatabaseOptions): PrismaPg {
  return new PrismaPg(poolConfig({ databaseUrl, schema, poolSize, settings }), { schema });
}

/**
 * A plain pg pool on the service's schema, for the one kind of query Prisma is not built for: reading
 * a large table through in pages (an export). Prisma's raw queries hold several copies of each page's
 * rows on their way to the caller; the driver alone keeps the reader's memory to about one page
 * (measured: docs/benchmarks.md, the conversation export).
 */
export function pgPool({ databaseUrl, schema, poolSize = 2, settings = {} }: DatabaseOptions): pg.Pool {
  return new pg.Pool(poolConfig({ databaseUrl, schema, poolSize, settings }));
}

/**
 * The settings of every pool of a service. The adapter builds its pool from them (and again should
 * Prisma reconnect), so the count is wired into the config: pg-pool calls `onConnect` with each new
 * connection before handing it out, and from then on each of its queries is counted.
 */
function poolConfig({ databaseUrl, schema, poolSize, settings }: Required<DatabaseOptions>): pg.PoolConfig {
  const statements = sqlStatements.series({ schema });
  return {
    connectionString: databaseUrl,
    max: poolSize,
    options: sessionOptions(schema, settings),
    onConnect: (client) => {
      const query = client.query;
      client.query = function (this: pg.ClientBase, ...args: unknown[]) {
        statements.inc();
        return Reflect.apply(query, this, args);
      } as typeof client.query;
    },
  };
}

function sessionOptions(schema: string, settings: Record<string, string>): string {
  assertSchemaName(schema);
  const options = [`-c search_path="${schema}"`];
  for (const [name, value] of Object.entries(settings)) {
    if (!/^[a-z_]+$/.test(name) || !/^[A-Za-z0-9_.]+$/.test(value)) throw new Error(`Invalid session setting ${name}=${value}`);
    options.push(`-c ${name}=${value}`);
  }
  return options.join(' ');
}
