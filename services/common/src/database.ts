// One Prisma client per service, bound to the service's own Postgres schema through the pg driver
// adapter (the `?schema=` URL parameter is ignored at run time, so the schema is passed explicitly).
import { PrismaPg } from '@prisma/adapter-pg';
import { assertSchemaName } from './migrations.ts';

export interface DatabaseOptions {
  databaseUrl: string;
  schema: string;
  poolSize?: number;
}

export function prismaAdapter({ databaseUrl, schema, poolSize = 10 }: DatabaseOptions): PrismaPg {
  assertSchemaName(schema);
  return new PrismaPg({ connectionString: databaseUrl, max: poolSize, options: `-c search_path="${schema}"` }, { schema });
}
