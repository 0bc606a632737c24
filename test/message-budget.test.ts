// The per-message budget: what one public chat message costs the whole product, in counts —
// statements each service sends to PostgreSQL, RPC calls each service answers, jobs each queue
// receives, Redis commands — measured on the real stack and held to the figures in
// message-budget.json, so that a change that adds work to every message is seen and reviewed
// (CONTRIBUTING.md, "Message budget"). Counts, never times: the figures are the same on an idle
// laptop and on a CI machine busy with other tests.
//
// The stack runs as `npm start` runs it (scripts/stack.ts), on its own ports, database, queue prefix
// and Redis server (started here, so other tests on the shared Redis cannot add to its command
// counts), against the fake model with no delay. The services count their own work (metrics.ts,
// read at GET /metrics); Redis counts commands (INFO commandstats).
//
// How a figure stays the same integer from run to run:
//   - Nothing time-driven runs in the measured window. The queue workers would otherwise poll Redis
//     every few seconds while idle and look for stalled jobs every 30 s (QUEUE_IDLE_WAIT_SECONDS and
//     QUEUE_STALLED_CHECK_SECONDS are set beyond the test's length); the blocking waits the workers
//     still make when they go idle or wake up are left out by name (BLOCKING).
//   - The messages go one at a time (ten visitors taking turns, JSON and streamed, ten messages to a
//     conversation): what a message costs alone. Messages that arrive together share work by timing
//     (billing takes the credit holds that arrive at once in one statement).
//   - The consumers see the same thing every run: the queues the warm-up published to are paused while
//     the messages are sent and resumed after, so every consumer drains a backlog (how many jobs it
//     takes at once, how the analytics worker fills its batches) instead of racing the answers.
//   - The window opens and closes on a quiet stack: every job published is processed and the counts
//     have stopped moving.
//   - The figure is the total over N messages divided by N and rounded DOWN: what every message
//     costs. What does not happen per message (a conversation's first message, a batch of the
//     analytics worker per 50 messages or of billing's usage worker, the queues' resume and first
//     fetches, a housekeeping sweep or a cache refresh that happens to fall in the window) adds a
//     fraction, which must stay below one for the figure to hold: the table prints each fraction, and
//     a figure whose fraction passes FRACTION_WARNING is flagged as close to moving.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type Redis } from '../services/common/src/redis.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../services/common/src/testing/fake-openai.ts';
import { PROCESSES, startStack, type RunningStack } from '../scripts/stack.ts';
import { read } from './repo.ts';

/** Messages measured: enough that a handful of stray statements or commands cannot move a figure. */
const N = 200;
const WARMUP = 30;
/** Visitors taking turns, each N / VISITORS messages in conversations of SESSION_LENGTH. */
const VISITORS = 10;
const SESSION_LENGTH = 10;
const PORT_OFFSET = 600;
const DATABASE = 'parley_test_message_budget';
const QUEUE_PREFIX = `budget${randomBytes(3).toString('hex')}`;
/** A leftover fraction above this is printed as close to moving the figure. */
const FRACTION_WARNING = 0.8;
/** Redis commands that wait rather than work: a worker's wait for a job ends with the job or the clock. */
const BLOCKING = new Set(['bzpopmin', 'bzpopmax', 'bzmpop', 'blpop', 'brpop', 'brpoplpush', 'blmove', 'blmpop']);
/** The test's own commands: its snapshots. (Its one resume per paused queue stays in: a few commands in all.) */
const OWN = new Set(['info']);
const SERVICES = ['auth', 'chatbot', 'chat', 'billing'] as const;
type ServiceName = (typeof SERVICES)[number];

interface Budget {
  sqlStatements: Record<ServiceName, number>;
  rpcServed: Record<ServiceName, number>;
  queueJobs: Record<string, number>;
  redisCommands: number;
}
const budget = JSON.parse(read('test/message-budget.json')) as Budget;

const QUESTIONS = [
  'What are your opening hours?',
  'Do you deliver on Sundays?',
  'How much does the large plan cost?',
  'Can I return an item after thirty days?',
  'Where is your nearest shop?',
  'Do you offer gift cards?',
  'Is there a student discount?',
];
const KNOWLEDGE = [
  'Opening hours: Monday to Friday 9:00 to 18:00, Saturday 10:00 to 16:00. We are closed on Sundays and public holidays.',
  'Delivery: orders placed before 14:00 ship the same day. Delivery takes one to three working days; there is no delivery on Sundays.',
  'Plans: the small plan costs 9 euros a month, the large plan 29 euros a month. Students get 20 percent off either plan.',
  'Returns: items can be returned within thirty days in their original packaging. After thirty days we offer store credit only.',
  'Shops: our shops are in Lyon, Lille and Nantes. Gift cards are sold in every shop.',
];

let redisServer: ChildProcess | undefined;
let redis: Redis | undefined;
let admin: pg.Client | undefined;
let model: FakeOpenAI | undefined;
let stack: RunningStack | undefined;
let gateway = '';
let uniqueId = '';
const servicePort = (name: ServiceName) => PROCESSES.find((p) => p.name === name)!.defaultPort + PORT_OFFSET;

// --- Counts -----------------------------------------------------------------------------------------

/** One process's counters: `name{labels}` → value. */
type Series = Map<string, number>;

function parseMetrics(text: string): Series {
  const out: Series = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** The value of a label in a series key such as `parley_rpc_served_total{service="x",method="y"}`. */
const label = (key: string, name: string) => new RegExp(`[{,]${name}="([^"]*)"`).exec(key)?.[1] ?? '';

/** The counters a snapshot reads. */
const COUNTERS = [
  'parley_sql_statements_total',
  'parley_rpc_served_total',
  'parley_queue_jobs_published_total',
  'parley_queue_jobs_processed_total',
  'parley_queue_jobs_failed_total',
];

async function redisCommands(): Promise<Map<string, number>> {
  const info = await redis!.info('commandstats');
  const out = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (!BLOCKING.has(m[1]) && !OWN.has(m[1])) out.set(m[1], Number(m[2]));
  return out;
}

interface Snapshot {
  services: Record<ServiceName, Series>;
  redis: Map<string, number>;
}

async function snapshot(): Promise<Snapshot> {
  const services = {} as Record<ServiceName, Series>;
  for (const name of SERVICES) {
    // Only the counters the budget reads: the rest (durations, process metrics, queue depths read
    // from Redis when scraped) moves with every scrape and would add Redis commands of its own.
    const res = await fetch(`http://127.0.0.1:${servicePort(name)}/metrics?${COUNTERS.map((c) => `name=${c}`).join('&')}`);
    if (!res.ok) throw new Error(`${name} /metrics answered ${res.status}`);
    services[name] = parseMetrics(await res.text());
  }
  return { services, redis: await redisCommands() };
}

/** Sums, per key that `keyOf` gives (undefined skips a series), the series named `metric` of the given processes. */
function sum(
  s: Snapshot,
  metric: string,
  keyOf: (series: string, service: ServiceName) => string | undefined,
  only: readonly ServiceName[] = SERVICES,
) {
  const out = new Map<string, number>();
  for (const service of only) {
    for (const [series, value] of s.services[service]) {
      if (!series.startsWith(`${metric}{`) && series !== metric) continue;
      const key = keyOf(series, service);
      if (key !== undefined) out.set(key, (out.get(key) ?? 0) + value);
    }
  }
  return out;
}

function delta(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of after) if (value - (before.get(key) ?? 0) !== 0) out.set(key, value - (before.get(key) ?? 0));
  return out;
}

const published = (s: Snapshot) => sum(s, 'parley_queue_jobs_published_total', (k) => label(k, 'queue'));
const processed = (s: Snapshot) => sum(s, 'parley_queue_jobs_processed_total', (k) => label(k, 'queue'));
const failed = (s: Snapshot) => sum(s, 'parley_queue_jobs_failed_total', (k) => label(k, 'queue'));

/** Every job published has been processed, and two snapshots in a row agree: nothing is still at work. */
async function quiet(what: string): Promise<Snapshot> {
  const deadline = Date.now() + 30_000;
  let last: string | undefined;
  for (;;) {
    const s = await snapshot();
    const done = processed(s);
    const behind = [...published(s)].filter(([queue, n]) => (done.get(queue) ?? 0) < n);
    const key = JSON.stringify([Object.values(s.services).map((m) => [...m]), [...s.redis]]);
    if (behind.length === 0 && key === last) return s;
    last = behind.length === 0 ? key : undefined;
    if (Date.now() > deadline)
      throw new Error(
        `${what}: the stack did not settle (jobs still waiting: ${behind.map(([q, n]) => `${q} ${n - (done.get(q) ?? 0)}`).join(', ') || 'none'})`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

// --- Visitors ---------------------------------------------------------------------------------------

interface Visitor {
  /** Unique to the visitor, in every question it asks. */
  name: string;
  ip: string;
  sessionId: string;
  sent: number;
}

/**
 * One message as the public page sends it, JSON or streamed, continuing the visitor's conversation
 * (a new one every SESSION_LENGTH messages). Every wording is the visitor's own: the analytics
 * worker groups a batch's questions by their words, so questions shared by chance between visitors
 * would make its statements depend on which messages meet in a batch.
 */
async function send(v: Visitor, stream: boolean): Promise<void> {
  const res = await fetch(`${gateway}/api/chatbot/public/${uniqueId}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': v.ip, ...(stream ? { accept: 'text/event-stream' } : {}) },
    body: JSON.stringify({
      message: `${QUESTIONS[v.sent % QUESTIONS.length]} (order ${v.name}x${v.sent})`,
      ...(v.sessionId ? { sessionId: v.sessionId } : {}),
    }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${text.slice(0, 300)}`);
  let reply: { message?: string; sessionId?: string };
  if (stream) {
    const done = /event: done\ndata: (.*)\n/.exec(text);
    if (!done) throw new Error(`no done event in: ${text.slice(0, 300)}`);
    reply = JSON.parse(done[1]);
  } else reply = JSON.parse(text);
  if (!reply.message || !reply.sessionId) throw new Error(`no answer in: ${text.slice(0, 300)}`);
  v.sent++;
  v.sessionId = v.sent % SESSION_LENGTH === 0 ? '' : reply.sessionId;
}

/**
 * `each` messages from every visitor, the visitors taking turns, one message at a time: what a
 * message costs on its own. Messages that arrive together share work by timing (billing takes the
 * credit holds that arrive at once in one statement), which would make the figures vary.
 */
async function chat(visitors: Visitor[], each: number): Promise<void> {
  for (let i = 0; i < each; i++) for (const v of visitors) await send(v, v.sent % 2 === 1);
}

const visitorsFrom = (group: string, count: number): Visitor[] =>
  Array.from({ length: count }, (_, i) => ({ name: `${group}${i}`, ip: `10.77.${group.charCodeAt(0)}.${i + 1}`, sessionId: '', sent: 0 }));

// --- The stack --------------------------------------------------------------------------------------

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startRedis(): Promise<string> {
  const port = await freePort();
  redisServer = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = createRedis(url);
    probe.on('error', () => {});
    const ok = await probe.ping().then(
      () => true,
      () => false,
    );
    probe.disconnect();
    if (ok) return url;
    if (redisServer.exitCode !== null || Date.now() > deadline) throw new Error('redis-server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function api<T>(method: string, path: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

beforeAll(async () => {
  const redisUrl = await startRedis();
  redis = createRedis(redisUrl);

  const base = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
  const adminUrl = new URL(base);
  adminUrl.pathname = '/postgres';
  admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  const databaseUrl = new URL(base);
  databaseUrl.pathname = `/${DATABASE}`;

  model = await startFakeOpenAI({ delayMs: 0, chunkDelayMs: 0 });
  stack = await startStack({
    portOffset: PORT_OFFSET,
    output: 'quiet',
    env: {
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: redisUrl,
      QUEUE_PREFIX,
      LOG_LEVEL: 'warn',
      PORT: '',
      OPENAI_API_KEY: 'budget-key',
      OPENAI_BASE_URL: model.url,
      CHAT_RATE_PER_VISITOR: '1000000',
      CHAT_RATE_PER_BOT: '10000000',
      TRUST_PROXY: '1',
      // Nothing time-driven in the window: an idle worker waits for a job (or this long), and looks
      // for stalled jobs when it starts and then only after the test.
      QUEUE_IDLE_WAIT_SECONDS: '3600',
      QUEUE_STALLED_CHECK_SECONDS: '3600',
    },
  });
  gateway = stack.url.replace('localhost', '127.0.0.1');

  // An owner, a chatbot with a few knowledge entries and no daily limits, and credit that never runs out.
  const { token, user } = await api<{ token: string; user: { id: string } }>('POST', '/api/auth/register', {
    email: `budget-${randomBytes(4).toString('hex')}@example.com`,
    password: 'budget-password-2026',
    password2: 'budget-password-2026',
  });
  const bot = await api<{ _id: string; uniqueId: string }>('POST', '/api/chatbot', { name: 'Budget shop assistant' }, token);
  for (const text of KNOWLEDGE) await api('POST', `/api/chatbot/${bot._id}/knowledge-base/text`, { text, append: true }, token);
  await api('PUT', `/api/chatbot/${bot._id}`, { limits: { visitorMessagesPerDay: null, dailySpendLimit: null } }, token);
  uniqueId = bot.uniqueId;
  const db = new pg.Client({ connectionString: databaseUrl.toString() });
  await db.connect();
  try {
    // Billing opens the account from the UserRegistered job.
    for (const deadline = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 100))) {
      const { rowCount } = await db.query(`UPDATE billing."Account" SET "creditBalance" = 1000 WHERE "userId" = $1`, [user.id]);
      if (rowCount === 1) break;
      if (Date.now() > deadline) throw new Error('billing opened no account for the owner');
    }
  } finally {
    await db.end();
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await model?.close();
  redis?.disconnect();
  redisServer?.kill();
  await admin?.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).catch(() => {});
  await admin?.end();
}, 60_000);

// --- The budget -------------------------------------------------------------------------------------

interface Row {
  kind: string;
  name: string;
  total: number;
  budget?: number;
}

describe('message budget', () => {
  it(`one public chat message stays within test/message-budget.json (${N} messages)`, async () => {
    // Warm-up: caches filled, connections open, every kind of message and job seen once.
    await chat(visitorsFrom('w', VISITORS), WARMUP / VISITORS);
    const warm = await quiet('after the warm-up');

    // The queues the messages publish to wait while the messages are sent (see the top of the file).
    const queues = [...published(warm).keys()].sort().map((name) => new Queue(name, { connection: redis!, prefix: QUEUE_PREFIX }));
    const completed = async () => Promise.all(queues.map(async (q) => (await q.getJobCounts('completed')).completed ?? 0));
    let before: Snapshot;
    let after: Snapshot;
    let completedBefore: number[];
    try {
      for (const q of queues) await q.pause();
      completedBefore = await completed();
      before = await quiet('before the messages');
      await chat(visitorsFrom('m', VISITORS), N / VISITORS);
    } finally {
      for (const q of queues) await q.resume();
    }
    try {
      after = await quiet('after the messages');
      // The window is closed: BullMQ's own counts agree with what the services counted.
      const jobs = delta(published(before), published(after));
      const completedAfter = await completed();
      for (const [i, q] of queues.entries()) {
        expect(completedAfter[i] - completedBefore[i], `${q.name}: jobs completed`).toBe(jobs.get(q.name) ?? 0);
        const left = await q.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed');
        expect(left, `${q.name}: jobs left over`).toEqual(Object.fromEntries(Object.keys(left).map((k) => [k, 0])));
      }
    } finally {
      for (const q of queues) await q.close();
    }
    expect([...delta(failed(before), failed(after))], 'jobs failed in the window').toEqual([]);

    const rows = measuredRows(before, after);
    console.log(table(rows));
    const over = rows.filter((r) => r.budget !== undefined && Math.floor(r.total / N) > r.budget);
    expect(
      over.map((r) => `${r.kind} ${r.name}: ${Math.floor(r.total / N)} per message, budget ${r.budget}`),
      'figures over budget (a raise is a reviewed change of test/message-budget.json: see CONTRIBUTING.md)',
    ).toEqual([]);
  }, 180_000);
});

/** Every figure of the window, with its budget; lines without one (by method, by command) are there to read. */
function measuredRows(before: Snapshot, after: Snapshot): Row[] {
  const rows: Row[] = [];
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const ofService = (metric: string, service: ServiceName, keyOf: (series: string) => string) =>
    delta(sum(before, metric, keyOf, [service]), sum(after, metric, keyOf, [service]));
  for (const service of SERVICES) {
    const statements = ofService('parley_sql_statements_total', service, () => 'all');
    rows.push({ kind: 'SQL statements', name: service, total: total(statements), budget: budget.sqlStatements[service] ?? 0 });
  }
  for (const service of SERVICES) {
    const served = ofService('parley_rpc_served_total', service, (k) => `${label(k, 'service').split('.').pop()}/${label(k, 'method')}`);
    rows.push({ kind: 'RPC calls served', name: service, total: total(served), budget: budget.rpcServed[service] ?? 0 });
    for (const [method, n] of [...served].sort()) rows.push({ kind: '  by method', name: method, total: n });
  }
  const jobs = delta(published(before), published(after));
  for (const queue of [...new Set([...Object.keys(budget.queueJobs), ...jobs.keys()])].sort())
    rows.push({ kind: 'queue jobs', name: queue, total: jobs.get(queue) ?? 0, budget: budget.queueJobs[queue] ?? 0 });
  const commands = delta(before.redis, after.redis);
  rows.push({ kind: 'Redis commands', name: 'total', total: total(commands), budget: budget.redisCommands });
  for (const [command, n] of [...commands].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])))
    rows.push({ kind: '  by command', name: command, total: n });
  return rows;
}

function table(rows: Row[]): string {
  const lines = [
    `Per public chat message (${N} messages after ${WARMUP} of warm-up; figure = total ÷ ${N}, rounded down):`,
    `${'what'.padEnd(18)} ${'of'.padEnd(44)} ${'total'.padStart(7)} ${'exact'.padStart(8)} ${'figure'.padStart(6)} ${'budget'.padStart(6)}`,
  ];
  for (const r of rows) {
    const exact = r.total / N;
    const figure = Math.floor(exact);
    const flags = [
      r.budget !== undefined && figure > r.budget ? 'OVER BUDGET' : '',
      r.budget !== undefined && figure < r.budget ? 'under budget: lower it' : '',
      r.budget !== undefined && exact - figure > FRACTION_WARNING ? 'close to the next figure' : '',
    ].filter(Boolean);
    lines.push(
      `${r.kind.padEnd(18)} ${r.name.padEnd(44)} ${String(r.total).padStart(7)} ${exact.toFixed(2).padStart(8)} ${(r.budget === undefined ? '' : String(figure)).padStart(6)} ${(r.budget === undefined ? '' : String(r.budget)).padStart(6)}${flags.length ? `  ← ${flags.join('; ')}` : ''}`,
    );
  }
  return lines.join('\n');
}
