import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/migrations.ts';
import { testInfra, uniqueName } from '../src/testing/infra.ts';

let databaseUrl: string;
const schema = uniqueName('t_kit');
const dir = mkdtempSync(join(tmpdir(), 'parley-migrations-'));
const client = () => new pg.Client({ connectionString: databaseUrl });

function addMigration(name: string, sql: string) {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, 'migration.sql'), sql);
}

beforeAll(async () => {
  ({ databaseUrl } = await testInfra());
  addMigration('20260101000000_init', 'CREATE TABLE "thing" ("id" SERIAL PRIMARY KEY, "name" TEXT NOT NULL);');
});

afterAll(async () => {
  const c = client();
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
});

describe('migrate', () => {
  it('applies pending migrations into the service schema and records them as Prisma does', async () => {
    expect(await migrate({ databaseUrl, schema, migrationsDir: dir })).toEqual(['20260101000000_init']);
    const c = client();
    await c.connect();
    const { rows } = await c.query(`SELECT migration_name, checksum, finished_at FROM "${schema}"."_prisma_migrations"`);
    expect(rows).toHaveLength(1);
    expect(rows[0].checksum).toMatch(/^[0-9a-f]{64}$/);
    await c.query(`INSERT INTO "${schema}"."thing" (name) VALUES ('a')`);
    await c.end();
  });

  it('is idempotent, also when replicas run it at once', async () => {
    addMigration('20260102000000_more', 'ALTER TABLE "thing" ADD COLUMN "size" INTEGER;');
    const results = await Promise.all([1, 2, 3].map(() => migrate({ databaseUrl, schema, migrationsDir: dir })));
    expect(results.flat()).toEqual(['20260102000000_more']);
  });

  it('rolls back a failing migration and reports it', async () => {
    addMigration('20260103000000_bad', 'ALTER TABLE "thing" ADD COLUMN "ok" INTEGER; SELECT * FROM "missing_table";');
    await expect(migrate({ databaseUrl, schema, migrationsDir: dir })).rejects.toThrow(/20260103000000_bad failed/);
    const c = client();
    await c.connect();
    const cols = await c.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'thing'`, [
      schema,
    ]);
    expect(cols.rows.map((r) => r.column_name)).not.toContain('ok');
    await c.end();
    addMigration('20260103000000_bad', 'ALTER TABLE "thing" ADD COLUMN "ok" INTEGER;');
    expect(await migrate({ databaseUrl, schema, migrationsDir: dir })).toEqual(['20260103000000_bad']);
  });

  it('refuses a migration edited after it was applied', async () => {
    addMigration('20260101000000_init', 'CREATE TABLE "thing" ("id" BIGSERIAL PRIMARY KEY);');
    await expect(migrate({ databaseUrl, schema, migrationsDir: dir })).rejects.toThrow('was edited after it was applied');
  });

  it('rejects an unsafe schema name', async () => {
    await expect(migrate({ databaseUrl, schema: 'x"; DROP SCHEMA public; --', migrationsDir: dir })).rejects.toThrow('invalid schema name');
  });
});
