// Applies a service's migrations (Prisma's layout: prisma/migrations/<timestamp>_<name>/migration.sql)
// to its own Postgres schema, recording them in Prisma's `_prisma_migrations` table so the real
// Prisma CLI stays compatible where it can run. Works offline: it needs only a database connection.
// An advisory lock lets several replicas start at once; each migration runs in its own transaction.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

export interface MigrateOptions {
  databaseUrl: string;
  schema: string;
  migrationsDir: string;
  log?: (line: string) => void;
}

export function assertSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  return schema;
}

export function listMigrations(dir: string): { name: string; sql: string; checksum: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** Applies pending migrations; returns the names applied. Fails if an applied one was edited. */
export async function migrate({ databaseUrl, schema, migrationsDir, log = () => {} }: MigrateOptions): Promise<string[]> {
  assertSchemaName(schema);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`parley-migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`SET search_path TO "${schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const done = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    for (const m of listMigrations(migrationsDir)) {
      const previous = done.get(m.name);
      if (previous !== undefined) {
        if (previous !== m.checksum) throw new Error(`migration ${m.name} in schema ${schema} was edited after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.name} failed in schema ${schema}: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.name);
      log(`applied ${schema}/${m.name}`);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`parley-migrate:${schema}`]).catch(() => {});
    await client.end();
  }
  return applied;
}

/** Creates the database named in the URL if it does not exist (local development convenience). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) return;
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  try {
    await client.connect();
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount)
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        // created meanwhile by another process: duplicate_database, or the catalog's unique index
        if (err.code !== '42P04' && err.code !== '23505') throw err;
      });
  } finally {
    await client.end().catch(() => {});
  }
}
