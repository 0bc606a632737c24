// Login timing benchmark (a script that prints figures, not a test): whether a failed login takes
// as long for an email no account has as for an account's wrong password, so that timing does not
// tell which emails have accounts. The test (services/auth/test/integration/login.test.ts) checks
// that both paths run the same Argon2 verification; this measures what that gives in wall-clock
// time. The auth service in this process (its Login over Connect, as the gateway calls it), real
// PostgreSQL and Redis; the two kinds of failure alternated attempt by attempt so both see the same
// background load.
//
//   npm run bench login-timing        (or: node bench/login-timing.ts)
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench and REDIS_URL to
// redis://127.0.0.1:6379; a fresh schema and a Redis prefix of its own, dropped at the end.
// BENCH_LOGINS (default 100) per kind, after 10 warm-up attempts each. The ratio should be near 1.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { AuthService } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { createLogger } from '../services/common/src/logger.ts';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { createServiceClient } from '../services/common/src/rpc-client.ts';
import { serveApp } from '../services/common/src/testing/serve.ts';
import { readAuthConfig } from '../services/auth/src/config.ts';
import { createAuthService, MIGRATIONS_DIR } from '../services/auth/src/service.ts';
import { latencies, load, ms } from './stats.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LOGINS = Number(process.env.BENCH_LOGINS ?? '100');
const WARMUP = 10;
const ACCOUNTS = 20;

const tag = randomBytes(4).toString('hex');
const schema = `bench_login_${tag}`;
const prefix = `bench_login_${tag}`;
const outboxDir = await mkdtemp(join(tmpdir(), 'parley-bench-login-'));

await ensureDatabase(databaseUrl);
await migrate({ databaseUrl, schema, migrationsDir: MIGRATIONS_DIR });
const config = readAuthConfig({
  ...process.env,
  DATABASE_URL: databaseUrl,
  REDIS_URL: redisUrl,
  AUTH_DB_SCHEMA: schema,
  QUEUE_PREFIX: prefix,
  LOG_LEVEL: 'warn',
  MAIL_OUTBOX_DIR: outboxDir,
  SMTP_URL: '',
  // Every attempt fails: the throttle is raised out of the way (its Redis calls are on both paths alike).
  LOGIN_MAX_FAILURES_PER_IP_AND_ACCOUNT: '1000000',
  LOGIN_MAX_FAILURES_PER_IP: '1000000',
  LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000000',
  REGISTRATIONS_MAX_PER_IP: '1000000',
});
const auth = await createAuthService(config, { logger: createLogger('bench-login-timing', 'warn'), workers: false });
const server = await serveApp(auth.app);
try {
  const client = createServiceClient(AuthService, server.url, { timeoutMs: 30_000 });
  const emails: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const email = `bench-${tag}-${i}@example.com`;
    await client.register({
      email,
      password: 'correct horse battery',
      passwordConfirmation: 'correct horse battery',
      clientIp: '203.0.113.1',
    });
    emails.push(email);
  }

  let attempt = 0;
  /** One failed login's time in ms; anything but a failure is a broken benchmark. */
  const failedLogin = async (email: string): Promise<number> => {
    const clientIp = `198.51.100.${(attempt++ % 250) + 1}`;
    const started = performance.now();
    const outcome = await client.login({ email, password: 'wrong-password', clientIp }).then(
      () => 'signed in',
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    const elapsed = performance.now() - started;
    if (!outcome.includes('Invalid credentials')) throw new Error(`expected "Invalid credentials", got: ${outcome}`);
    return elapsed;
  };
  const samples = { wrongPassword: [] as number[], unknownEmail: [] as number[] };
  for (let i = 0; i < WARMUP + LOGINS; i++) {
    const known = emails[i % ACCOUNTS];
    const unknown = `ghost-${tag}-${i}@example.com`;
    // Which kind goes first alternates, so neither always follows the other.
    let wrongPassword: number;
    let unknownEmail: number;
    if (i % 2) {
      unknownEmail = await failedLogin(unknown);
      wrongPassword = await failedLogin(known);
    } else {
      wrongPassword = await failedLogin(known);
      unknownEmail = await failedLogin(unknown);
    }
    if (i < WARMUP) continue;
    samples.wrongPassword.push(wrongPassword);
    samples.unknownEmail.push(unknownEmail);
  }

  const wrong = latencies(samples.wrongPassword);
  const unknown = latencies(samples.unknownEmail);
  console.log(`Login timing: ${LOGINS} failed logins of each kind, alternated, after ${WARMUP} warm-up each`);
  console.log(`load average ${load()}`);
  console.log('kind                                p50 ms   p95 ms   p99 ms');
  for (const [label, l] of [
    ['wrong password for an account', wrong],
    ['unknown email', unknown],
  ] as const) {
    console.log(`${label.padEnd(34)}${ms(l.p50).padStart(8)}${ms(l.p95).padStart(9)}${ms(l.p99).padStart(9)}`);
  }
  console.log(`median ratio, unknown email ÷ wrong password: ${(unknown.p50 / wrong.p50).toFixed(3)}`);
} finally {
  await server.close();
  for (const close of auth.closers) await close();
  const redis = createRedis(redisUrl);
  await unlinkMatching(redis, `${prefix}:*`);
  await redis.quit();
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  await rm(outboxDir, { recursive: true, force: true });
}
