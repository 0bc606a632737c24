// One Prisma client per service, bound to the service's own Postgres schema through the pg driver
// adapter (the `?schema=` URL parameter is ignored at run time, so the schema is passed explicitly).
// Every pool counts the statements its connections send (parley_sql_statements_total, metrics.ts):
// Prisma's queries and transactions' BEGIN and COMMIT alike, each query the driver sends counted once.
// Their use (connections open, idle, and callers waiting for one) is read when /metrics is scraped.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { counter, gauge } from './metrics.ts';
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

/**
 * A service's main pool, for its Prisma client (`prismaAdapter({ pool, schema })`) and for a statement
 * on a message's path that the service sends through the driver itself: billing's credit hold, whose
 * raw query through Prisma cost 2–4 × the driver's CPU and up to 1.5 ms more (docs/benchmarks.md).
 * Same connections, so the connection budget does not change.
 */
export function mainPool({ databaseUrl, schema, poolSize = 10, settings = {} }: DatabaseOptions): pg.Pool {
  return watched(new pg.Pool(poolConfig({ databaseUrl, schema, poolSize, settings })), schema, 'prisma');
}

export function prismaAdapter(opts: DatabaseOptions | { pool: pg.Pool; schema: string }): PrismaPg {
  // The adapter is handed the pool (and ends it when Prisma disconnects, as it ends one it builds), so
  // its use can be reported.
  const pool = 'pool' in opts ? opts.pool : mainPool(opts);
  return new PrismaPg(pool, { schema: opts.schema, disposeExternalPool: true });
}

/**
 * A plain pg pool on the service's schema, for the one kind of query Prisma is not built for: reading
 * a large table through in pages (an export). Prisma's raw queries hold several copies of each page's
 * rows on their way to the caller; the driver alone keeps the reader's memory to about one page
 * (measured: docs/benchmarks.md, the conversation export).
 */
export function pgPool({ databaseUrl, schema, poolSize = 2, settings = {} }: DatabaseOptions): pg.Pool {
  return watched(new pg.Pool(poolConfig({ databaseUrl, schema, poolSize, settings })), schema, 'pg');
}

// --- Pool use, read when scraped ----------------------------------------------------------------------

/** Every open pool of the process, with its labels; an ended pool leaves at the next scrape. */
const pools = new Map<pg.Pool, { schema: string; kind: 'prisma' | 'pg' }>();

function watched(pool: pg.Pool, schema: string, kind: 'prisma' | 'pg'): pg.Pool {
  pools.set(pool, { schema, kind });
  return pool;
}

gauge(
  'parley_db_pool_connections',
  "Connections of this process's PostgreSQL pools, by schema, pool (prisma: Prisma's; pg: the plain pools) and state: open, idle, waiting (callers queued for a connection) and max (the pools' size).",
  ['schema', 'pool', 'state'],
  (g) => {
    g.reset();
    const sums = new Map<string, { schema: string; kind: string; open: number; idle: number; waiting: number; max: number }>();
    for (const [pool, { schema, kind }] of pools) {
      if (pool.ended) {
        pools.delete(pool);
        continue;
      }
      const key = `${schema}\0${kind}`;
      const sum = sums.get(key) ?? { schema, kind, open: 0, idle: 0, waiting: 0, max: 0 };
      sum.open += pool.totalCount;
      sum.idle += pool.idleCount;
      sum.waiting += pool.waitingCount;
      sum.max += pool.options.max ?? 10;
      sums.set(key, sum);
    }
    for (const { schema, kind, open, idle, waiting, max } of sums.values()) {
      g.labels(schema, kind, 'open').set(open);
      g.labels(schema, kind, 'idle').set(idle);
      g.labels(schema, kind, 'waiting').set(waiting);
      g.labels(schema, kind, 'max').set(max);
    }
  },
);

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
