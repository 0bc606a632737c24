// Owner API benchmark (a script that prints figures, not a test): what choosing the current
// workspace (docs/adr/0030-workspaces.md) costs an owner's everyday reads. Starts the whole product
// (startStack, as `npm start` runs it) on a database of its own, signs up an owner on the Pro plan
// with a few chatbots, then sends, one at a time and interleaved, the dashboard's two reads of the
// chatbot list:
//   - GET /api/chatbot (REST),
//   - the GraphQL query `{ chatbots { id name } }`,
// each without X-Workspace-Id (the personal workspace, as every request before workspaces) and with it
// naming the personal workspace (the owner's id), and two reads served from the features' operation
// tables (docs/adr/0067-one-table-of-operations.md): GET /api/workspace/members and GET
// /api/workspace/webhooks; it prints each one's p50 and p95 in ms, and the gateway process's CPU time
// (user + system, from /proc) per request over the measured passes.
//
//   node bench/owner-api.ts            (or: npm run bench owner-api)
//
// BENCH_BASE=/path/to/another/checkout (set up with `npm run setup`) adds that checkout's stack,
// started with its own scripts/stack.ts and alternated with this one (base, this, base, this), each
// round on a fresh database and queue prefix; it prints the ratios this ÷ base. A checkout from
// before workspaces ignores the header, so its "with the header" rows are its plain requests again.
//
// Uses its own database (parley_bench_owner_api, or BENCH_DATABASE; dropped at the end unless
// BENCH_KEEP=1), ports 600 above the defaults (or BENCH_PORT_OFFSET) and its own queue prefixes.
// BENCH_SCALE=0.2 sends a fifth of the requests.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { startStack, type RunningStack } from '../scripts/stack.ts';
import { freshDatabase, postJson } from './bench-stack.ts';
import { latencies, load, ms, stopOnSignal } from './stats.ts';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
const DATABASE = process.env.BENCH_DATABASE ?? 'parley_bench_owner_api';
if (!/^[a-z_][a-z0-9_]*$/.test(DATABASE)) throw new Error(`BENCH_DATABASE must be a plain database name, got "${DATABASE}"`);
const PORT_OFFSET = Number(process.env.BENCH_PORT_OFFSET ?? '600');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BENCH_BASE = process.env.BENCH_BASE;
const scale = Number(process.env.BENCH_SCALE ?? '1');
/** Requests of each kind a round measures, after WARMUP of each unmeasured. */
const MEASURED = Math.max(50, Math.round(1_000 * scale));
const WARMUP = Math.max(20, Math.round(100 * scale));
const CHATBOTS = 5;
const PASSWORD = 'bench-password-2026';

type Kind = 'this' | 'base';
const REQUESTS = [
  'GET /api/chatbot',
  'GET /api/chatbot + X-Workspace-Id',
  'GraphQL chatbots',
  'GraphQL chatbots + X-Workspace-Id',
  'GET /api/workspace/members',
  'GET /api/workspace/webhooks',
] as const;
type RequestName = (typeof REQUESTS)[number];

const signal = stopOnSignal();
/** The base checkout's own startStack (BENCH_BASE), loaded before anything is started. */
const startBase = BENCH_BASE
  ? ((await import(pathToFileURL(join(BENCH_BASE, 'scripts/stack.ts')).href)) as { startStack: typeof startStack }).startStack
  : undefined;
const { url: databaseUrl, admin } = await freshDatabase(BASE_DATABASE_URL, DATABASE);
const prefixes: string[] = [];
let stack: RunningStack | undefined;

/** An owner on the Pro plan with CHATBOTS chatbots, on the stack at `gateway`. */
async function prepareOwner(gateway: string): Promise<{ token: string; userId: string }> {
  const { token, user } = await postJson<{ token: string; user: { id: string } }>(gateway, '/api/auth/register', {
    email: `bench-owner-${randomBytes(4).toString('hex')}@example.com`,
    password: PASSWORD,
    password2: PASSWORD,
  });
  // Billing opens the account when it hears of the new user (a queue): given 10 s to do so.
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (const deadline = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 200))) {
      const { rowCount } = await db.query(`UPDATE billing."Account" SET plan = 'pro' WHERE "userId" = $1`, [user.id]);
      if (rowCount === 1) break;
      if (Date.now() > deadline) throw new Error('no billing account for the bench owner');
    }
  } finally {
    await db.end();
  }
  for (let i = 1; i <= CHATBOTS; i++) await postJson(gateway, '/api/chatbot', { name: `Bench assistant ${i}` }, token);
  return { token, userId: user.id };
}

/** One request's time in ms; anything but a 200 with the owner's chatbots throws. */
async function timed(gateway: string, name: RequestName, token: string, userId: string): Promise<number> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (name.endsWith('X-Workspace-Id')) headers['x-workspace-id'] = userId;
  const graphql = name.startsWith('GraphQL');
  const begun = performance.now();
  const res = graphql
    ? await fetch(`${gateway}/graphql`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ chatbots { id name } }' }),
      })
    : await fetch(`${gateway}${name.startsWith('GET /api/workspace/') ? name.slice(4) : '/api/chatbot'}`, { headers });
  const body = (await res.json()) as { data?: { chatbots: unknown[] } } | unknown[];
  const elapsed = performance.now() - begun;
  const list = graphql ? (body as { data?: { chatbots: unknown[] } }).data?.chatbots : body;
  const expected = name === 'GET /api/workspace/members' ? 1 : name === 'GET /api/workspace/webhooks' ? 0 : CHATBOTS;
  if (res.status !== 200 || !Array.isArray(list) || list.length !== expected)
    throw new Error(`${name} answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
  return elapsed;
}

/** A round: a fresh database and stack of `kind`, the owner, then the requests interleaved. */
/** A process's CPU time so far in ms (user + system, /proc/<pid>/stat in clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The gateway's CPU ms over each round's measured passes, and the requests they served. */
const cpu: Record<Kind, { ms: number; requests: number }> = { this: { ms: 0, requests: 0 }, base: { ms: 0, requests: 0 } };

async function round(kind: Kind): Promise<Record<RequestName, number[]>> {
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  const queuePrefix = `benchowner${randomBytes(4).toString('hex')}`;
  prefixes.push(queuePrefix);
  const starter = kind === 'base' ? startBase! : startStack;
  const begun = performance.now();
  stack = await starter({
    portOffset: PORT_OFFSET,
    output: process.env.BENCH_LOGS ? 'inherit' : 'quiet',
    env: { DATABASE_URL: databaseUrl, QUEUE_PREFIX: queuePrefix, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', PORT: '' },
  });
  try {
    const gateway = stack.url.replace('localhost', '127.0.0.1');
    const { token, userId } = await prepareOwner(gateway);
    console.log(`  (${kind}: stack and owner ready in ${((performance.now() - begun) / 1000).toFixed(1)} s)`);
    for (let i = 0; i < WARMUP; i++) for (const name of REQUESTS) await timed(gateway, name, token, userId);
    const samples = Object.fromEntries(REQUESTS.map((name) => [name, [] as number[]])) as Record<RequestName, number[]>;
    const gatewayPid = stack.pid('gateway');
    const cpuBefore = cpuMs(gatewayPid);
    for (let i = 0; i < MEASURED; i++) {
      signal.check();
      // Each pass sends the four in a rotated order, so none always follows another.
      for (let j = 0; j < REQUESTS.length; j++) {
        const name = REQUESTS[(i + j) % REQUESTS.length];
        samples[name].push(await timed(gateway, name, token, userId));
      }
    }
    cpu[kind].ms += cpuMs(gatewayPid) - cpuBefore;
    cpu[kind].requests += MEASURED * REQUESTS.length;
    return samples;
  } finally {
    await stack.stop();
    stack = undefined;
  }
}

const order: Kind[] = BENCH_BASE ? ['base', 'this', 'base', 'this'] : ['this', 'this'];
const all: Record<Kind, Record<RequestName, number[]>> = {
  this: Object.fromEntries(REQUESTS.map((name) => [name, [] as number[]])) as Record<RequestName, number[]>,
  base: Object.fromEntries(REQUESTS.map((name) => [name, [] as number[]])) as Record<RequestName, number[]>,
};
console.log(
  `owner API: ${CHATBOTS} chatbots, ${MEASURED} measured requests of each kind a round (${WARMUP} warm-up), one at a time; ` +
    `rounds ${order.join(', ')}; ${cpus().length} cores, load ${load()}`,
);
try {
  for (const kind of order) {
    const samples = await round(kind);
    for (const name of REQUESTS) all[kind][name].push(...samples[name]);
  }
  const kinds: Kind[] = BENCH_BASE ? ['base', 'this'] : ['this'];
  console.log(`\n${'request'.padEnd(38)}${kinds.map((k) => `${k} p50`.padStart(11) + `${k} p95`.padStart(11)).join('')}`);
  for (const name of REQUESTS) {
    const cells = kinds.map((k) => {
      const l = latencies(all[k][name]);
      return ms(l.p50).padStart(11) + ms(l.p95).padStart(11);
    });
    console.log(`${name.padEnd(38)}${cells.join('')}`);
  }
  if (BENCH_BASE) {
    console.log('\nthis ÷ base (p50, p95):');
    for (const name of REQUESTS) {
      const t = latencies(all.this[name]);
      const b = latencies(all.base[name]);
      console.log(`  ${name.padEnd(36)}${(t.p50 / b.p50).toFixed(2).padStart(6)}${(t.p95 / b.p95).toFixed(2).padStart(6)}`);
    }
  }
  console.log(`\ngateway CPU per request (user + system, all kinds together):`);
  for (const k of kinds) console.log(`  ${k.padEnd(6)}${(cpu[k].ms / cpu[k].requests).toFixed(3)} ms over ${cpu[k].requests} requests`);
  const plain = latencies(all.this['GET /api/chatbot']);
  const named = latencies(all.this['GET /api/chatbot + X-Workspace-Id']);
  console.log(
    `\nthis checkout, the header's cost on GET /api/chatbot: p50 ${ms(named.p50 - plain.p50)} ms, p95 ${ms(named.p95 - plain.p95)} ms`,
  );
} finally {
  await stack?.stop();
  if (process.env.BENCH_KEEP !== '1') {
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    const redis = createRedis(REDIS_URL);
    for (const prefix of prefixes) await unlinkMatching(redis, `${prefix}:*`);
    await redis.quit();
  }
  await admin.end();
}
