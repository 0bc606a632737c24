// The migration roles of a service process, on billing's real entry points: the one-shot migration
// command (`node services/billing/src/migrate.ts`, for a job before a rollout) runs with nothing but
// DATABASE_URL and its schema and exits 0 or 1, and main.ts with MIGRATE_ON_START=false starts
// without touching the schema.
import { spawn, spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { testInfra, uniqueName } from '@parley/common/testing/infra.ts';

const entry = (file: string) => new URL(`../../src/${file}`, import.meta.url).pathname;
const schemas: string[] = [];

afterAll(async () => {
  const client = new pg.Client({ connectionString: (await testInfra()).databaseUrl });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

async function tablesIn(schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: (await testInfra()).databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1`, [
      schema,
    ]);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

describe('billing process roles', () => {
  it('the migration command needs only DATABASE_URL and BILLING_DB_SCHEMA, even in production, and exits 0 then 1 on failure', async () => {
    const { databaseUrl } = await testInfra();
    const schema = uniqueName('t_migjob');
    schemas.push(schema);
    // No SERVICE_SECRET, no Stripe settings: a production job environment with the database alone.
    const env = { PATH: process.env.PATH, NODE_ENV: 'production', DATABASE_URL: databaseUrl, BILLING_DB_SCHEMA: schema };
    const first = spawnSync(process.execPath, [entry('migrate.ts')], { env, encoding: 'utf8' });
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/billing: \d+ migration\(s\) applied/);
    expect(await tablesIn(schema)).toBeGreaterThan(0);
    const again = spawnSync(process.execPath, [entry('migrate.ts')], { env, encoding: 'utf8' });
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('billing: schema up to date');
    // Port 9 (discard) on localhost refuses connections.
    const failed = spawnSync(process.execPath, [entry('migrate.ts')], {
      env: { ...env, DATABASE_URL: 'postgresql://postgres@127.0.0.1:9/parley' },
      encoding: 'utf8',
    });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('billing: migration failed');
  });

  it('with MIGRATE_ON_START=false the service starts without migrating, and stops with exit 0', async () => {
    const { databaseUrl, redisUrl } = await testInfra();
    const schema = uniqueName('t_nomig');
    schemas.push(schema);
    const child = spawn(process.execPath, [entry('main.ts')], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        BILLING_DB_SCHEMA: schema,
        MIGRATE_ON_START: 'false',
        WORKERS: 'off',
        PORT: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      for (const end = Date.now() + 30_000; !out.includes('billing service listening'); await new Promise((r) => setTimeout(r, 50))) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`billing did not start: ${out}`);
      }
      const port = Number(/"port":(\d+)/.exec(out)![1]);
      expect((await fetch(`http://127.0.0.1:${port}/startupz`)).status).toBe(200);
      expect(out).toContain('MIGRATE_ON_START=false');
      expect(await tablesIn(schema)).toBe(0);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
