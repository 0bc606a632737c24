// Real PostgreSQL and Redis for integration tests: from DATABASE_URL/REDIS_URL when given, else
// Testcontainers when a container runtime exists, else a clear failure (never a silent skip).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ensureDatabase, migrate } from '../migrations.ts';

export interface TestInfra {
  databaseUrl: string;
  redisUrl: string;
}

let infra: Promise<TestInfra> | undefined;

export function testInfra(): Promise<TestInfra> {
  infra ??= resolveInfra();
  return infra;
}

async function resolveInfra(): Promise<TestInfra> {
  let databaseUrl = process.env.DATABASE_URL;
  let redisUrl = process.env.REDIS_URL;
  if (!databaseUrl || !redisUrl) {
    try {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const { GenericContainer } = await import('testcontainers');
      if (!databaseUrl) databaseUrl = (await new PostgreSqlContainer('postgres:15-alpine').start()).getConnectionUri();
      if (!redisUrl) {
        const redis = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
        redisUrl = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
      }
    } catch (err) {
      throw new Error(
        'Integration tests need PostgreSQL and Redis: set DATABASE_URL and REDIS_URL (npm test sets them to the local ' +
          `services) or provide a container runtime for Testcontainers. Testcontainers said: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
  await ensureDatabase(databaseUrl);
  return { databaseUrl, redisUrl };
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/** A fresh schema with the service's migrations applied; `drop()` removes it. */
export async function createTestSchema(
  prefix: string,
  migrationsDir: string,
): Promise<{ databaseUrl: string; schema: string; drop: () => Promise<void> }> {
  const { databaseUrl } = await testInfra();
  const schema = uniqueName(`t_${prefix}`);
  await migrate({ databaseUrl, schema, migrationsDir });
  return {
    databaseUrl,
    schema,
    drop: async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}
