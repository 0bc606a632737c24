// One Prisma client per service, bound to the service's own Postgres schema through the pg driver
// adapter (the `?schema=` URL parameter is ignored at run time, so the schema is passed explicitly).
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { assertSchemaName } from './migrations.ts';

export interface DatabaseOptions {
  databaseUrl: string;
  schema: string;
  poolSize?: number;
  /** Further settings for every session of the pool (name → value), e.g. for a pool that serves one kind of query. */
  settings?: Record<string, string>;
}

export function prismaAdapter({ databaseUrl, schema, poolSize = 10, settings = {} }: DatabaseOptions): PrismaPg {
  return new PrismaPg({ connectionString: databaseUrl, max: poolSize, options: sessionOptions(schema, settings) }, { schema });
}

/**
 * A plain pg pool on the service's schema, for the one kind of query Prisma is not built for: reading
 * a large table through in pages (an export). Prisma's raw queries hold several copies of each page's
 * rows on their way to the caller; the driver alone keeps the reader's memory to about one page
 * (measured: docs/benchmarks.md, issue 15 export).
 */
export function pgPool({ databaseUrl, schema, poolSize = 2, settings = {} }: DatabaseOptions): pg.Pool {
  return new pg.Pool({ connectionString: databaseUrl, max: poolSize, options: sessionOptions(schema, settings) });
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
