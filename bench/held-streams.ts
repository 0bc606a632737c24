// What a held inbox stream costs at rest (docs/adr/0035-access-for-as-long-as-a-response-lives.md;
// prints figures, not a test): the whole product, plus two more gateways of this script's own in
// front of the same services, one re-checking every held stream every minute (the default,
// ACCESS_RECHECK_MS=60000) and one that never does in the window (an hour: what is left is the
// registry itself, the closest to the gateway before streams were held). On each in turn, STREAMS
// (500) open and idle `GET /api/inbox/events` streams of a pro workspace's owner; over WINDOW_MS (two
// minutes: two rounds of re-checks) the CPU of that gateway and of auth (which answers the
// re-checks), and the gateway's RSS and PSS with no stream and with them open.
// BENCH_BEFORE=DIR adds, first, a gateway run from another checkout (an earlier commit's, whose
// node_modules and generated code may be links to this one's): the same figures before streams were held.
//
//   node bench/held-streams.ts            (or: npm run bench held-streams)
//
// Uses its own database (parley_bench_held) and queue prefix, dropped at the end (BENCH_KEEP=1 keeps
// them), ports 950 above the defaults (or BENCH_PORT_OFFSET). BENCH_WINDOW_MS, BENCH_STREAMS.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest, type ClientRequest } from 'node:http';
import { cpus } from 'node:os';
import pg from 'pg';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { PROCESS_MEMORY, root, startStack, type RunningStack } from '../scripts/stack.ts';
import { cpuTicks, freshDatabase, postJson, stackChildren } from './bench-stack.ts';
import { load as loadAvg, mb } from './stats.ts';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE = 'parley_bench_held';
const PORT_OFFSET = Number(process.env.BENCH_PORT_OFFSET ?? '950');
const STREAMS = Number(process.env.BENCH_STREAMS ?? '500');
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? '120000');
const SERVICE_SECRET = randomBytes(32).toString('base64url');
const TICK_MS = 10;

const sleep = (n: number) => new Promise<void>((r) => setTimeout(r, n));

/** A process's resident and proportional set sizes in bytes (PSS shares the node binary's pages out). */
function memory(pid: number): { rss: number; pss: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? '0') * 1024;
  return { rss: field('Rss'), pss: field('Pss') };
}

function spawnGateway(env: NodeJS.ProcessEnv, dir = root): ChildProcess {
  return spawn(process.execPath, [...PROCESS_MEMORY.nodeFlags, 'gateway/src/main.ts'], {
    cwd: dir,
    stdio: ['ignore', process.env.BENCH_LOGS ? 'inherit' : 'ignore', 'inherit'],
    env: { ...process.env, ...PROCESS_MEMORY.env, ...env },
  });
}

async function ready(child: ChildProcess, port: number, name: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${name} did not become ready`);
    await sleep(100);
  }
}

const clientAgent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** An open inbox stream, resolved once the server said `: connected`. */
function openInbox(gateway: string, token: string): Promise<{ req: ClientRequest; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${gateway}/api/inbox/events`,
      { agent: clientAgent, headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`inbox events answered ${res.statusCode}`));
        let closed = false;
        res.on('close', () => (closed = true));
        res.once('data', () => resolve({ req, closed: () => closed }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const { url: databaseUrl, admin } = await freshDatabase(BASE_DATABASE_URL, DATABASE);
const db = new pg.Client({ connectionString: databaseUrl });
const queuePrefix = `benchheld${randomBytes(4).toString('hex')}`;
const children: ChildProcess[] = [];
let stack: RunningStack | undefined;
try {
  console.log(
    `held streams benchmark: ${cpus().length} CPUs, Node ${process.version}, load ${loadAvg()}, ${STREAMS} idle inbox streams, ` +
      `a window of ${WINDOW_MS / 1000} s`,
  );
  const common = {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    SERVICE_SECRET,
  };
  stack = await startStack({ portOffset: PORT_OFFSET, output: process.env.BENCH_LOGS ? 'inherit' : 'quiet', env: { ...common, PORT: '' } });
  const g1 = stack.url.replace('localhost', '127.0.0.1');
  const services = {
    AUTH_URL: `http://127.0.0.1:${4001 + PORT_OFFSET}`,
    CHATBOT_URL: `http://127.0.0.1:${4002 + PORT_OFFSET}`,
    CHAT_URL: `http://127.0.0.1:${4003 + PORT_OFFSET}`,
    BILLING_URL: `http://127.0.0.1:${4004 + PORT_OFFSET}`,
    PUBLIC_URL: stack.url,
  };
  const pids = stackChildren();
  const authPid = pids.auth;
  if (!authPid) throw new Error('auth process not found');

  const { token, user } = await postJson<{ token: string; user: { id: string } }>(g1, '/api/auth/register', {
    email: `bench-held-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench-password-2026',
    password2: 'bench-password-2026',
  });
  await db.connect();
  await db.query(`UPDATE billing."Account" SET plan = 'pro' WHERE "userId" = $1`, [user.id]);

  const variants: { name: string; recheckMs: string; dir?: string }[] = [
    ...(process.env.BENCH_BEFORE
      ? [{ name: `before (${process.env.BENCH_BEFORE})`, recheckMs: '60000', dir: process.env.BENCH_BEFORE }]
      : []),
    { name: 'held, re-checked every hour (the registry alone)', recheckMs: '3600000' },
    { name: 'held, re-checked every minute (the default)', recheckMs: '60000' },
  ];
  const rows: string[] = [];
  for (const [i, variant] of variants.entries()) {
    const port = 8080 + PORT_OFFSET + 10 + i;
    const child = spawnGateway(
      {
        ...common,
        ...services,
        PORT: String(port),
        METRICS_PORT: String(9091 + PORT_OFFSET + 10 + i),
        ACCESS_RECHECK_MS: variant.recheckMs,
      },
      variant.dir,
    );
    children.push(child);
    await ready(child, port, `gateway (${variant.name})`);
    const gateway = `http://127.0.0.1:${port}`;
    await sleep(3000);
    const empty = memory(child.pid!);
    const open = [];
    for (let n = 0; n < STREAMS; n += 50)
      open.push(...(await Promise.all(Array.from({ length: Math.min(50, STREAMS - n) }, () => openInbox(gateway, token)))));
    // Quiet again: the opening's garbage is collected (the processes run one collection once quiet).
    await sleep(3000);
    const ticks = { gateway: cpuTicks(child.pid!), auth: cpuTicks(authPid) };
    await sleep(WINDOW_MS);
    const spent = { gateway: (cpuTicks(child.pid!) - ticks.gateway) * TICK_MS, auth: (cpuTicks(authPid) - ticks.auth) * TICK_MS };
    const held = memory(child.pid!);
    const stillOpen = open.filter((s) => !s.closed()).length;
    const perMinute = (msSpent: number) => ((msSpent / WINDOW_MS) * 60_000).toFixed(0);
    rows.push(
      `| ${variant.name} | ${perMinute(spent.gateway)} | ${perMinute(spent.auth)} | ${mb(empty.rss)} → ${mb(held.rss)} | ` +
        `${mb(empty.pss)} → ${mb(held.pss)} | ${stillOpen}/${STREAMS} |`,
    );
    for (const s of open) s.req.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  console.log(`\n${STREAMS} held inbox streams at rest, CPU in ms per minute (Postgres not counted):\n`);
  console.log('| gateway | gateway CPU | auth CPU | gateway RSS (none → held) | gateway PSS (none → held) | still open |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
} finally {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await stack?.stop();
  clientAgent.destroy();
  await db.end().catch(() => {});
  if (process.env.BENCH_KEEP !== '1') {
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    const redis = createRedis(REDIS_URL);
    try {
      await unlinkMatching(redis, `${queuePrefix}:*`);
    } finally {
      await redis.quit();
    }
  }
  await admin.end();
}
