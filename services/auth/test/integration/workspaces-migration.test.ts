// The workspaces migration gives every existing account its personal workspace, whose id is the
// account's, with the account as its owner: applied to a schema migrated up to the one before it.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '@parley/common/migrations.ts';
import { testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import { MIGRATIONS_DIR } from '../../src/service.ts';

const WORKSPACES_MIGRATION = '20261128060000_workspaces';
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe('the workspaces migration', () => {
  it('gives every existing account a personal workspace with its own id, owned by it', async () => {
    const { databaseUrl } = await testInfra();
    const schema = uniqueName('t_auth_mig');
    const dir = await mkdtemp(join(tmpdir(), 'parley-auth-migrations-'));
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    cleanups.push(async () => {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
      await rm(dir, { recursive: true, force: true });
    });
    const names = listMigrations(MIGRATIONS_DIR).map((m) => m.name);
    expect(names).toContain(WORKSPACES_MIGRATION);
    for (const name of names.filter((n) => n < WORKSPACES_MIGRATION))
      await cp(join(MIGRATIONS_DIR, name), join(dir, name), { recursive: true });
    await migrate({ databaseUrl, schema, migrationsDir: dir });

    const named = '11111111-1111-4111-8111-111111111111';
    const unnamed = '22222222-2222-4222-8222-222222222222';
    await client.query(`SET search_path TO "${schema}"`);
    await client.query(
      `INSERT INTO "User" ("id", "email", "name", "passwordHash", "createdAt", "updatedAt") VALUES
        ($1, 'ada@example.com', 'Ada', 'x', '2026-01-02T03:04:05Z', now()),
        ($2, 'grace.hopper@example.com', '', 'x', '2026-02-03T04:05:06Z', now())`,
      [named, unnamed],
    );

    await cp(join(MIGRATIONS_DIR, WORKSPACES_MIGRATION), join(dir, WORKSPACES_MIGRATION), { recursive: true });
    expect(await migrate({ databaseUrl, schema, migrationsDir: dir })).toEqual([WORKSPACES_MIGRATION]);

    const { rows: workspaces } = await client.query(`SELECT "id", "name", "personal", "createdAt" FROM "Workspace" ORDER BY "name"`);
    expect(workspaces).toEqual([
      { id: named, name: "Ada's workspace", personal: true, createdAt: expect.any(Date) },
      { id: unnamed, name: "grace.hopper's workspace", personal: true, createdAt: expect.any(Date) },
    ]);
    const { rows: members } = await client.query(`SELECT "workspaceId", "userId", "role" FROM "Membership" ORDER BY "userId"`);
    expect(members).toEqual([
      { workspaceId: named, userId: named, role: 'owner' },
      { workspaceId: unnamed, userId: unnamed, role: 'owner' },
    ]);
  });
});
