// One Prisma client per service, bound to the service's own Postgres schema through the pg driver
// adapter (the `?schema=` URL parameter is ignored at run time, so the schema is passed explicitly).
import { PrismaPg } from '@prisma/adapter-pg';
import { assertSchemaName } from './migrations.ts';

export interface DatabaseOptions {
  databaseUrl: string;
  schema: string;
  poolSize?: number;
  /** Further settings for every session of the pool (name → value), e.g. for a pool that serves one kind of query. */
  settings?: Record<string, string>;
}

export function prismaAdapter({ databaseUrl, schema, poolSize = 10, settings = {} }: DatabaseOptions): PrismaPg {
  assertSchemaName(schema);
  const options = [`-c search_path="${schema}"`];
  for (const [name, value] of Object.entries(settings)) {
    if (!/^[a-z_]+$/.test(name) || !/^[A-Za-z0-9_.]+$/.test(value)) throw new Error(`Invalid session setting ${name}=${value}`);
    options.push(`-c ${name}=${value}`);
  }
  return new PrismaPg({ connectionString: databaseUrl, max: poolSize, options: options.join(' ') }, { schema });
}
