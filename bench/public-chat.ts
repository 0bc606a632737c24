// Public chat benchmark (a script that prints figures, not a test). Starts the whole product with
// startStack against a local fake of the OpenAI API (in this process), then measures through the
// gateway's REST path POST /api/chatbot/public/{uniqueId}/chat:
//   1. overhead: with a zero-latency model, (a) paced: 50 visitors who each send a message, wait
//      for the whole answer, then read and type for 1–3 s before the next (the realistic load of 50
//      concurrent visitors): latency percentiles minus the model's own time, and requests per
//      second; (b) closed loop: 50 visitors resending at once with no pause (the saturation
//      throughput, where latency is queueing);
//   2. first token: with a streaming model (first content after 50 + 20 ms), the time to the first
//      `event: delta` through the gateway against the time to the first content chunk straight
//      from the model, sequential and at 10 concurrent visitors;
//   3. scaling: requests per second at 50 concurrent with one chat service instance, then two,
//      behind a small round-robin proxy (this script's) that the gateway's CHAT_URL points at in
//      both runs; each with the whole stack running, and with the queue consumers paused (their
//      jobs applied after the run), as if they ran on other machines.
//
//   node bench/public-chat.ts            (or: npm run bench public-chat)
//
// Uses its own database (parley_bench_chat, or BENCH_DATABASE) and Redis key prefix, both dropped at the end
// (BENCH_KEEP=1 keeps them), ports
// 300 above the defaults (or BENCH_PORT_OFFSET) and its own queue prefix. BENCH_SCALE=0.1 runs a tenth of the requests;
// BENCH_CLIENT=fetch sends the requests with fetch instead of node:http (see `post` below);
// BENCH_LOGS=1 shows the services' logs (BENCH_LOG_LEVEL, default warn); BENCH_PHASES=paced
// (or overhead, consumers, first-token, scaling, comma-separated) runs only those parts; BENCH_PHASES=idle
// measures what the stack's processes cost in 20 s with nobody chatting; BENCH_PHASES=consumers
// measures the analytics consumer (ADR 18) running against paused, in one run (not in the default set);
// BENCH_PHASES=memory the processes' memory settings against the runtimes' own sizing, in one run
// (not in the default set).
//
// Three phases measure the product against references or profile it, each round on a fresh database,
// queue prefix and stack (not in the default set; with only these, no stack is started for the others):
//   - BENCH_PHASES=floor: Parley against two references, alternated (Parley, floor, architecture
//     floor, then again), with a zero-latency model: the floor (bench/floor.ts: one process doing one
//     Redis round trip, one SQL read, the model and one SQL write) and the architecture floor
//     (bench/architecture-floor/: three plain node:http processes of Parley's shape, edge → chat →
//     billing with signed calls, the credit held before the model, usage settled in batches from a
//     Redis stream; its own database, parley_bench_floor or BENCH_DATABASE_floor). Each round: the
//     processes' RSS and PSS at rest, one visitor alone (overhead p50), 50 visitors in a closed loop
//     (requests/s, CPU per message of the measured processes plus every PostgreSQL and Redis server
//     process), then 200 (requests/s), then a streaming model, one visitor (time added to the first
//     token, as in the first-token phase); then a table of the means with Parley ÷ floor and Parley ÷
//     architecture floor.
//   - BENCH_PHASES=profile: Parley's processes, then the architecture floor's, under `node --cpu-prof`
//     with 50 visitors in a closed loop (BENCH_PROFILE_DIR keeps the profiles where given): each
//     process's self time a message in the loop, by function, by package or file, by the nearest of
//     this repository's functions, and by this repository's functions with the work under them.
//   - BENCH_PHASES=one-owner: 200 visitors at once on the one bench chatbot, then 50, with the model
//     answering after 50 ms: requests/s, latency percentiles, p99 ÷ p50 and fairness between visitors;
//     before them, after the warm-up, the first-message burst (BENCH_BURST_ROUNDS of it, default 2):
//     200 new visitors send their first message at the same moment to a new chatbot, then four more
//     each, continuing with the session id returned: the first answers' p50 and p99 against the
//     3rd–5th messages'.
// BENCH_BASE=/path/to/another/checkout (set up with `npm run setup`) adds that checkout's stack to
// both phases, started with its own scripts/stack.ts, alternated with this one (base, this, …), and
// prints the ratios this ÷ base. BENCH_FLOOR_KINDS (comma-separated of base, this, floor,
// architecture floor) runs only those rounds of the floor phase; BENCH_TOLERATE_FAILURES=1 prints the
// failures at 200 at once instead of stopping.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import pg from 'pg';
import { QUEUES } from '../services/common/src/queues.ts';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { startFakeOpenAI, type FakeOpenAIRequest } from '../services/common/src/testing/fake-openai.ts';
import {
  GATEWAY_METRICS_PORT,
  PROCESS_MEMORY,
  PROCESSES,
  root,
  startStack,
  type RunningStack,
  type StackOptions,
} from '../scripts/stack.ts';
import { parsePrometheusText } from '../services/common/src/testing/prometheus-text.ts';
import { cpuTicks, freshDatabase, postJson, stackChildren } from './bench-stack.ts';
import { startArchitectureFloor } from './architecture-floor/start.ts';
import { profileSplit } from './cpu-profile.ts';
import { startFloor } from './floor.ts';
import { mulberry32, percentile } from './stats.ts';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
// BENCH_DATABASE and BENCH_PORT_OFFSET let two runs share a machine without dropping each other's database.
const DATABASE = process.env.BENCH_DATABASE ?? 'parley_bench_chat';
if (!/^[a-z_][a-z0-9_]*$/.test(DATABASE)) throw new Error(`BENCH_DATABASE must be a plain database name, got "${DATABASE}"`);
/** The architecture floor's own database (bench/architecture-floor/), created afresh for each of its rounds. */
const ARCHITECTURE_FLOOR_DATABASE = process.env.BENCH_DATABASE ? `${DATABASE}_floor` : 'parley_bench_floor';
const PORT_OFFSET = Number(process.env.BENCH_PORT_OFFSET ?? '300');
/** The second chat service instance of the scaling run listens here (4003 + 310). */
const SECOND_CHAT_PORT = 4003 + PORT_OFFSET + 10;
const scale = Number(process.env.BENCH_SCALE ?? '1');
const VISITORS = 50;
const WARMUP = Math.max(50, Math.round(200 * scale));
const MEASURED = Math.max(100, Math.round(3_000 * scale));
const MODEL_SAMPLES = Math.max(100, Math.round(500 * scale));
const FIRST_TOKEN_REQUESTS = Math.max(40, Math.round(200 * scale));
const FIRST_TOKEN_CONCURRENT = 10;
const STREAM_FIRST_DELAY_MS = 50;
const STREAM_CHUNK_DELAY_MS = 20;
/** No run may take longer than this, whatever happens. */
const PHASE_DEADLINE_MS = 5 * 60_000;
/** The paced run: each visitor reads and types for THINK_MIN_MS–THINK_MAX_MS between messages. */
const PACED_SECONDS = Math.max(10, Math.round(40 * scale));
const PACED_MAX = Math.max(150, Math.round(1_500 * scale));
const THINK_MIN_MS = 1_000;
const THINK_MAX_MS = 3_000;
/** The one-owner phase: this many visitors at once on the one chatbot, the model answering after a delay. */
const ONE_OWNER_VISITORS = 200;
const ONE_OWNER_MESSAGES = Math.max(400, Math.round(3_000 * scale));
const ONE_OWNER_MODEL_DELAY_MS = 50;
/** The first-message burst of the one-owner phase: each of its visitors' messages, and bursts a round. */
const BURST_MESSAGES = 5;
const BURST_ROUNDS = Number(process.env.BENCH_BURST_ROUNDS ?? 2);
/** Sequential messages of the one visitor alone in the floor phase. */
const ONE_VISITOR = Math.max(30, Math.round(300 * scale));
const BENCH_BASE = process.env.BENCH_BASE;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const phases = new Set((process.env.BENCH_PHASES ?? 'paced,overhead,first-token,scaling').split(',').map((p) => p.trim()));

const ms = (n: number) => n.toFixed(2);
const sleep = (n: number) => new Promise<void>((r) => setTimeout(r, n));
function summary(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  return {
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    max: s[s.length - 1],
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

// Deterministic visitors and messages: the same on every run.
const rand = mulberry32(20261122);
const QUESTIONS = [
  'What are your opening hours?',
  'Do you deliver on Sundays?',
  'How much does the large plan cost?',
  'Can I return an item after thirty days?',
  'Where is your nearest shop?',
  'Do you offer gift cards?',
  'How do I reset my password?',
  'Is there a student discount?',
];
const KNOWLEDGE = [
  'Opening hours: Monday to Friday 9:00 to 18:00, Saturday 10:00 to 16:00. We are closed on Sundays and public holidays.',
  'Delivery: orders placed before 14:00 ship the same day. Delivery takes one to three working days; there is no delivery on Sundays.',
  'Plans: the small plan costs 9 euros a month, the large plan 29 euros a month. Students get 20 percent off either plan.',
  'Returns: items can be returned within thirty days in their original packaging. After thirty days we offer store credit only.',
  'Shops: our shops are in Lyon (12 rue de la République), Lille (3 place du Théâtre) and Nantes (8 quai de la Fosse). Gift cards are sold in every shop.',
];

interface Visitor {
  sessionId: string;
  ip: string;
  sent: number;
  /** Continues the conversation the server's answer names, as the chat page does (the other phases start one per message). */
  keepSession?: boolean;
}
const visitors: Visitor[] = Array.from({ length: VISITORS }, (_, i) => ({
  sessionId: `bench-visitor-${i}-${Math.floor(rand() * 1e9).toString(36)}`,
  ip: `10.42.${Math.floor(i / 200)}.${(i % 200) + 1}`,
  sent: 0,
}));
/** New visitors for a round of the floor and one-owner phases, each with its own address and conversation. */
const freshVisitors = (n: number, block = 43): Visitor[] =>
  Array.from({ length: n }, (_, i) => ({
    sessionId: `bench-${randomBytes(6).toString('hex')}`,
    ip: `10.${block}.${Math.floor(i / 200)}.${(i % 200) + 1}`,
    sent: 0,
    keepSession: true,
  }));
/** The burst's visitors' addresses: 10.{block}.x.y, a new block every round, never one another phase used (new day counters). */
let burstBlock = 100;
const message = (v: Visitor) => `${QUESTIONS[(v.sent + v.ip.length) % QUESTIONS.length]} (${v.sent})`;

// --- CPU accounting from /proc (clock ticks of 10 ms) ----------------------------------------------

const TICK_MS = 10;
function machineTicks(): { busy: number; total: number } {
  const parts = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = parts.reduce((a, b) => a + b, 0);
  return { busy: total - parts[3] - (parts[4] ?? 0), total };
}
/** The stack's processes: this process's children, named by the entry file they run. */
function stackPids(extra: Record<string, number> = {}): Record<string, number> {
  const out: Record<string, number> = { bench: process.pid };
  for (const [name, pid] of Object.entries(stackChildren())) if (!Object.values(extra).includes(pid)) out[name] = pid;
  return { ...out, ...extra };
}
function cpuSnapshot(pids: Record<string, number>) {
  return {
    at: performance.now(),
    machine: machineTicks(),
    procs: Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, cpuTicks(pid)])),
  };
}
/** CPU used per process between two snapshots, in cores (1.0 = one core busy all the time). */
function cpuSplit(a: ReturnType<typeof cpuSnapshot>, b: ReturnType<typeof cpuSnapshot>): string {
  const seconds = (b.at - a.at) / 1000;
  const parts = Object.keys(a.procs).map((n) => `${n} ${(((b.procs[n] - a.procs[n]) * TICK_MS) / 1000 / seconds).toFixed(2)}`);
  const machine = (b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total);
  return `CPU (cores): ${parts.join(', ')}; whole machine ${(machine * 100).toFixed(0)}% busy of ${cpus().length} cores`;
}

// --- The round-robin proxy in front of the chat service instances ---------------------------------

let proxyErrors = 0;
function startProxy(): Promise<{ url: string; targets: URL[]; server: Server; dropIdle(): void; close(): Promise<void> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity, timeout: 5000 });
  const targets: URL[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    const target = targets[next++ % targets.length];
    const upstream = httpRequest(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (proxyErrors++ < 5) console.log(`  proxy: ${req.url} to ${target.host} failed: ${err.message}`);
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        targets,
        server,
        // Idle connections may have been closed by the chat service meanwhile (its keep-alive timeout
        // is 5 s): a request sent on one would fail, so they are dropped before each run.
        dropIdle: () => {
          for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
        },
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
            agent.destroy();
          }),
      });
    }),
  );
}

// --- Requests -------------------------------------------------------------------------------------

let gateway = '';
let uniqueId = '';

/**
 * The load generator's HTTP client: node:http on keep-alive connections, which costs the
 * benchmark's process about half of what `fetch` does per request (measured: 0.75 vs 1.4 ms of CPU
 * after 30 ms idle), so that the latency measured is the stack's rather than the client's.
 * BENCH_CLIENT=fetch measures with `fetch` instead (as earlier figures were).
 */
const useFetch = process.env.BENCH_CLIENT === 'fetch';
const clientAgent = new Agent({ keepAlive: true, maxSockets: Infinity, timeout: 5000 });
interface Posted {
  status: number;
  text: string;
  /** performance.now() of the first chunk that `isFirst` accepted (text so far). */
  firstAt: number;
}
function post(url: string, headers: Record<string, string>, body: string, isFirst?: (text: string) => boolean): Promise<Posted> {
  if (useFetch) return postWithFetch(url, headers, body, isFirst);
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body);
    const req = httpRequest(
      url,
      { method: 'POST', agent: clientAgent, headers: { ...headers, 'content-length': String(payload.length) } },
      (res) => {
        res.setEncoding('utf8');
        let text = '';
        let firstAt = NaN;
        res.on('data', (chunk: string) => {
          text += chunk;
          if (isFirst && Number.isNaN(firstAt) && isFirst(text)) firstAt = performance.now();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, firstAt }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
async function postWithFetch(
  url: string,
  headers: Record<string, string>,
  body: string,
  isFirst?: (text: string) => boolean,
): Promise<Posted> {
  const res = await fetch(url, { method: 'POST', headers, body });
  if (!res.body) return { status: res.status, text: '', firstAt: NaN };
  const decoder = new TextDecoder();
  let text = '';
  let firstAt = NaN;
  for await (const chunk of res.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    if (isFirst && Number.isNaN(firstAt) && isFirst(text)) firstAt = performance.now();
  }
  return { status: res.status, text, firstAt };
}

async function chatJson(v: Visitor): Promise<number> {
  const t0 = performance.now();
  const res = await post(
    `${gateway}/api/chatbot/public/${uniqueId}/chat`,
    { 'content-type': 'application/json', 'x-forwarded-for': v.ip },
    JSON.stringify({ sessionId: v.sessionId, message: message(v) }),
  );
  const elapsed = performance.now() - t0;
  v.sent++;
  const body = JSON.parse(res.text) as { message?: string; sessionId?: string };
  if (res.status !== 200 || !body.message) throw new Error(`chat answered ${res.status}: ${res.text.slice(0, 300)}`);
  if (v.keepSession && body.sessionId) v.sessionId = body.sessionId;
  return elapsed;
}

async function chatStream(v: Visitor): Promise<number> {
  const t0 = performance.now();
  const res = await post(
    `${gateway}/api/chatbot/public/${uniqueId}/chat`,
    { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': v.ip },
    JSON.stringify({ sessionId: v.sessionId, message: message(v) }),
    (text) => text.includes('event: delta'),
  );
  v.sent++;
  if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${res.text.slice(0, 300)}`);
  if (Number.isNaN(res.firstAt)) throw new Error(`no first event in: ${res.text.slice(0, 300)}`);
  return res.firstAt - t0;
}

const hasContent = (text: string) => /"delta":\{"content":"[^"]/.test(text);

/** The model called straight, with a request as the chat service sends it (and the same client as the visitors). */
async function modelDirect(modelUrl: string, body: FakeOpenAIRequest, stream: boolean): Promise<number> {
  const t0 = performance.now();
  const res = await post(
    `${modelUrl}/chat/completions`,
    { 'content-type': 'application/json', authorization: 'Bearer bench' },
    JSON.stringify(stream ? { ...body, stream: true, stream_options: { include_usage: true } } : { ...body, stream: false }),
    stream ? hasContent : undefined,
  );
  if (res.status !== 200) throw new Error(`model answered ${res.status}`);
  if (!stream) {
    JSON.parse(res.text);
    return performance.now() - t0;
  }
  if (Number.isNaN(res.firstAt)) throw new Error(`no content chunk in: ${res.text.slice(0, 300)}`);
  return res.firstAt - t0;
}

/** `count` requests shared by `concurrency` visitors (of `among`), each sending one after another. */
/** `failuresAreFigures`: failed requests are reported as a figure of the run instead of stopping the benchmark. */
async function load(
  count: number,
  concurrency: number,
  send: (v: Visitor) => Promise<number>,
  among = visitors,
  failuresAreFigures = false,
) {
  const latencies: number[] = [];
  /** Each visitor's latencies (those with at least one answer). */
  const perVisitor: number[][] = [];
  const errors: string[] = [];
  let issued = 0;
  const deadline = Date.now() + PHASE_DEADLINE_MS;
  const t0 = performance.now();
  await Promise.all(
    among.slice(0, concurrency).map(async (v) => {
      const mine: number[] = [];
      while (issued < count && Date.now() < deadline) {
        issued++;
        try {
          const t = await send(v);
          latencies.push(t);
          mine.push(t);
        } catch (err) {
          errors.push((err as Error).message);
        }
      }
      if (mine.length) perVisitor.push(mine);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  if (errors.length) console.log(`  ${errors.length} of ${issued} requests failed (first: ${errors[0]})`);
  if (!failuresAreFigures && errors.length > count / 100) throw new Error(`${errors.length} of ${issued} requests failed`);
  if (issued < count) throw new Error(`only ${issued} of ${count} requests within ${PHASE_DEADLINE_MS / 1000} s`);
  return { latencies, perVisitor, errors: errors.length, seconds, rps: latencies.length / seconds };
}

/**
 * Paced visitors: each starts at a random moment within the first think time, then sends a message,
 * waits for the whole answer and thinks for a random THINK_MIN_MS–THINK_MAX_MS before the next,
 * until PACED_SECONDS have passed or PACED_MAX messages were sent.
 */
async function paced(send: (v: Visitor) => Promise<number>) {
  const think = mulberry32(7_2026);
  const pause = () => THINK_MIN_MS + think() * (THINK_MAX_MS - THINK_MIN_MS);
  const latencies: number[] = [];
  const errors: string[] = [];
  let issued = 0;
  const t0 = performance.now();
  const until = t0 + PACED_SECONDS * 1000;
  await Promise.all(
    visitors.map(async (v) => {
      await sleep(think() * THINK_MAX_MS);
      while (issued < PACED_MAX && performance.now() < until) {
        issued++;
        try {
          latencies.push(await send(v));
        } catch (err) {
          errors.push((err as Error).message);
        }
        await sleep(pause());
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  if (errors.length) console.log(`  ${errors.length} of ${issued} requests failed (first: ${errors[0]})`);
  if (errors.length > issued / 100) throw new Error(`${errors.length} of ${issued} requests failed`);
  return { latencies, seconds, rps: latencies.length / seconds };
}

const api = <T>(path: string, body: unknown, token?: string) => postJson<T>(gateway, path, body, token);

// --- The run ----------------------------------------------------------------------------------------

/** The base checkout's own startStack (BENCH_BASE), loaded before anything is created. */
const startBase = BENCH_BASE
  ? ((await import(pathToFileURL(join(BENCH_BASE, 'scripts/stack.ts')).href)) as { startStack: typeof startStack }).startStack
  : undefined;
const { url: databaseUrl, admin } = await freshDatabase(BASE_DATABASE_URL, DATABASE);

const model = await startFakeOpenAI({ delayMs: 0, chunkDelayMs: 0 });
const proxy = await startProxy();
proxy.targets.push(new URL(`http://127.0.0.1:${4003 + PORT_OFFSET}`));
let queuePrefix = `benchchat${randomBytes(4).toString('hex')}`;
// One for the stack and the second chat instance, which must sign and check calls alike.
const serviceSecret = process.env.SERVICE_SECRET || randomBytes(32).toString('base64url');
const stackEnv = (chatUrl?: string): NodeJS.ProcessEnv => ({
  DATABASE_URL: databaseUrl,
  QUEUE_PREFIX: queuePrefix,
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  PORT: '',
  OPENAI_API_KEY: 'bench-key',
  OPENAI_BASE_URL: model.url,
  CHAT_RATE_PER_VISITOR: '1000000',
  CHAT_RATE_PER_BOT: '10000000',
  TRUST_PROXY: '1',
  SERVICE_SECRET: serviceSecret,
  ...(chatUrl ? { CHAT_URL: chatUrl } : {}),
});
const start = (chatUrl?: string, memory?: StackOptions['memory']) =>
  startStack({ memory, portOffset: PORT_OFFSET, output: process.env.BENCH_LOGS ? 'inherit' : 'quiet', env: stackEnv(chatUrl) });

const BOT_NAME = 'Bench shop assistant';

/** An owner, a chatbot with a few knowledge entries, and credit that never runs out, on the stack at `gateway`; sets `uniqueId`. */
async function prepareOwner(): Promise<void> {
  const { token, user } = await api<{ token: string; user: { id: string } }>('/api/auth/register', {
    email: `bench-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench-password-2026',
    password2: 'bench-password-2026',
  });
  const bot = await api<{ _id: string; uniqueId: string }>('/api/chatbot', { name: BOT_NAME }, token);
  for (const text of KNOWLEDGE) await api(`/api/chatbot/${bot._id}/knowledge-base/text`, { text, append: true }, token);
  // Thousands of messages from one address: without the daily visitor and spend limits (their
  // defaults would stop the bench; bench/visitor-limits.ts measures what they cost).
  const unlimited = await fetch(`${gateway}/api/chatbot/${bot._id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ limits: { visitorMessagesPerDay: null, dailySpendLimit: null } }),
  });
  if (!unlimited.ok) throw new Error(`could not lift the bench chatbot's limits: ${unlimited.status}`);
  uniqueId = bot.uniqueId;
  // Billing opens the account when it hears of the new user (a queue): given 10 s to do so.
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (const deadline = Date.now() + 10_000; ; await sleep(200)) {
      const { rowCount } = await db.query(`UPDATE billing."Account" SET "creditBalance" = 1000 WHERE "userId" = $1`, [user.id]);
      if (rowCount === 1) break;
      if (Date.now() > deadline) throw new Error('no billing account for the bench owner');
    }
  } finally {
    await db.end();
  }
}

let stack: RunningStack | undefined;
let secondChat: ChildProcess | undefined;

// --- The floor and one-owner phases: rounds on fresh databases, alternated --------------------------

type Kind = 'this' | 'base' | 'floor' | 'architecture floor';
const classic = [...phases].some((p) => p !== 'floor' && p !== 'one-owner' && p !== 'profile');
/** Every Redis key prefix of the run (each round of the floor and one-owner phases has its own). */
const prefixes = [queuePrefix];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ratio = (a: number, b: number) => (a / b).toFixed(2);

/** A fresh database and key prefix, nothing running on them: no round sees another's rows or queues. */
async function freshRound(): Promise<void> {
  await stack?.stop();
  stack = undefined;
  for (const sockets of Object.values(clientAgent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  queuePrefix = `benchchat${randomBytes(4).toString('hex')}`;
  prefixes.push(queuePrefix);
}

/** This checkout's stack or the base checkout's (its own scripts/stack.ts), set up with the bench's owner and chatbot. */
async function startParley(kind: 'this' | 'base'): Promise<void> {
  await freshRound();
  const begun = performance.now();
  const starter = kind === 'base' ? startBase! : startStack;
  stack = await starter({ portOffset: PORT_OFFSET, output: process.env.BENCH_LOGS ? 'inherit' : 'quiet', env: stackEnv() });
  gateway = stack.url.replace('localhost', '127.0.0.1');
  await prepareOwner();
  const found = Object.keys(stackChildren()).length;
  if (found !== PROCESSES.length) throw new Error(`found ${found} of the stack's ${PROCESSES.length} processes in /proc`);
  console.log(`  (${kind}: stack ready in ${((performance.now() - begun) / 1000).toFixed(1)} s)`);
}

/** True once the round's queues hold no waiting or active job (the consumers' share of the messages is done). */
async function queuesDrained(queues: Queue[], timeoutMs = 60_000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) {
    const counts = await Promise.all(queues.map((q) => q.getJobCounts()));
    if (counts.every((c) => (c.waiting ?? 0) + (c.active ?? 0) + (c.paused ?? 0) + (c.prioritized ?? 0) === 0)) return true;
  }
  return false;
}

/** Every PostgreSQL and Redis server process; a backend of another database than the bench's is told apart. */
function serverProcesses(): Map<number, string> {
  const out = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm === 'redis-server') out.set(Number(entry), 'redis');
      if (comm !== 'postgres') continue;
      // A backend's title: "postgres: [cluster: ]user database host(port) state".
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const db = /^postgres: (?:\S+: )?\S+ (\S+) (?:\[local\]|\S+\(\d+\))/.exec(title)?.[1];
      out.set(Number(entry), db && db !== DATABASE && db !== ARCHITECTURE_FLOOR_DATABASE ? 'postgres-other' : 'postgres');
    } catch {
      // gone
    }
  }
  return out;
}
/** CPU ticks by pid of the measured processes (named) and of the database servers. */
function tickSnapshot(measured: Record<string, number>): Map<number, { group: string; ticks: number }> {
  const groups = serverProcesses();
  for (const [name, pid] of Object.entries(measured)) groups.set(pid, name);
  return new Map([...groups].map(([pid, group]) => [pid, { group, ticks: cpuTicks(pid) }]));
}
/**
 * CPU ms per message by group between two snapshots. A process that started in between counts from
 * zero; one that ended in between (a short-lived backend) is missed.
 */
function cpuPerMessage(a: ReturnType<typeof tickSnapshot>, b: ReturnType<typeof tickSnapshot>, messages: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [pid, { group, ticks }] of b) out[group] = (out[group] ?? 0) + ((ticks - (a.get(pid)?.ticks ?? 0)) * TICK_MS) / messages;
  return out;
}
const rssMb = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
/**
 * A process's proportional set size: its pages, each shared one divided by the processes sharing it.
 * RSS counts the `node` binary's and its libraries' pages in full in every process; PSS shares them out.
 */
const pssMb = (pid: number) => Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))![1]) / 1024;
const promptChars = () => mean(model.requests.map((r) => r.messages.reduce((n, m) => n + m.content.length, 0)));

/**
 * The duration histograms' sum and count of every process of the stack, by series: what a request
 * served (`route`), a call made (`→ service.method`) and a model call took. Empty for a checkout
 * whose processes have no /metrics.
 */
async function durationTotals(): Promise<Map<string, { sum: number; count: number }>> {
  const totals = new Map<string, { sum: number; count: number }>();
  const families = ['parley_http_request_duration_seconds', 'parley_rpc_client_duration_seconds', 'parley_model_duration_seconds'];
  await Promise.all(
    PROCESSES.map(async (p) => {
      const port = p.name === 'gateway' ? GATEWAY_METRICS_PORT + PORT_OFFSET : p.defaultPort + PORT_OFFSET;
      const text = await fetch(`http://127.0.0.1:${port}/metrics?${families.map((f) => `name=${f}`).join('&')}`)
        .then((r) => (r.ok ? r.text() : ''))
        .catch(() => '');
      if (!text) return;
      for (const family of parsePrometheusText(text).values()) {
        for (const { name, labels, value } of family.samples) {
          const part = name.endsWith('_sum') ? 'sum' : name.endsWith('_count') ? 'count' : undefined;
          if (!part) continue;
          const what =
            family.name === 'parley_http_request_duration_seconds'
              ? (labels.route ?? '').replace(/^parley\.\w+\.v1\./, '')
              : family.name === 'parley_rpc_client_duration_seconds'
                ? `→ ${labels.service}.${labels.method}`
                : '→ model';
          const key = `${p.name} ${what}`;
          const t = totals.get(key) ?? { sum: 0, count: 0 };
          t[part] += value;
          totals.set(key, t);
        }
      }
    }),
  );
  return totals;
}

/** Milliseconds per message of each series that ran at least once every two messages between two totals. */
function perMessage(
  a: Map<string, { sum: number; count: number }>,
  b: Map<string, { sum: number; count: number }>,
  messages: number,
): string {
  const rows: string[] = [];
  for (const [key, t] of b) {
    const before = a.get(key) ?? { sum: 0, count: 0 };
    const count = t.count - before.count;
    if (count < messages / 2) continue;
    rows.push(
      `${key} ${ms(((t.sum - before.sum) * 1000) / messages)}${count > messages * 1.5 ? ` (${(count / messages).toFixed(1)} a message)` : ''}`,
    );
  }
  return rows.join('; ');
}

interface FloorRound {
  rps: number;
  /** Requests/s with ONE_OWNER_VISITORS in a closed loop. */
  rps200: number;
  /** With a streaming model, the p50 time to the first `event: delta` less the model's own p50 to its first content. */
  firstTokenAdded: number;
  /** CPU ms per message: the measured processes by name, postgres (all of it), postgres-other (its other databases' backends), redis. */
  cpu: Record<string, number>;
  cpuTotal: number;
  oneP50: number;
  rss: number;
  pss: number;
}

/**
 * One round against whatever `gateway` and `uniqueId` point at: warm-up, the processes' RSS and PSS
 * at rest, one visitor alone, then VISITORS in a closed loop with the CPU of `measured` and of the
 * database servers, over the loop and until its work is done (`settled`, by default the round's
 * queues drained: their consumers' work is the messages'), then ONE_OWNER_VISITORS in a closed loop.
 */
async function floorRound(
  label: string,
  measured: () => Record<string, number>,
  settled?: (timeoutMs: number) => Promise<boolean>,
): Promise<FloorRound> {
  const queues = settled
    ? []
    : Object.values(QUEUES).map((name) => new Queue(name, { connection: { url: REDIS_URL }, prefix: queuePrefix }));
  const done = settled ?? ((timeoutMs: number) => queuesDrained(queues, timeoutMs));
  try {
    const crowd = freshVisitors(VISITORS);
    await load(WARMUP, VISITORS, chatJson, crowd);
    await done(60_000);
    await sleep(1000);
    const pids = measured();
    const memory = Object.entries(pids).map(([name, pid]) => ({ name, rss: rssMb(pid), pss: pssMb(pid) }));
    const layersBefore = await durationTotals();
    const one = summary((await load(ONE_VISITOR, 1, chatJson, freshVisitors(1))).latencies);
    const layers = perMessage(layersBefore, await durationTotals(), ONE_VISITOR);
    model.requests.length = 0;
    const before = tickSnapshot(pids);
    const commandsBefore = await redisCommandCount();
    const loop = await load(MEASURED, VISITORS, chatJson, crowd);
    const loopEnd = performance.now();
    const drained = await done(60_000);
    const drainSeconds = (performance.now() - loopEnd) / 1000;
    const cpu = cpuPerMessage(before, tickSnapshot(pids), loop.latencies.length);
    const commands = ((await redisCommandCount()) - commandsBefore) / loop.latencies.length;
    console.log(
      `    Redis commands ${commands.toFixed(1)} a message at ${VISITORS} concurrent, scripts' own included (every client of the server)`,
    );
    const prompt = promptChars();
    model.requests.length = 0;
    // BENCH_TOLERATE_FAILURES=1: failures at 200 at once are printed, not fatal (on a machine loaded
    // past its cores, a call can wait in the caller's queue until its service token expires).
    const crowd200 = await load(
      MEASURED,
      ONE_OWNER_VISITORS,
      chatJson,
      freshVisitors(ONE_OWNER_VISITORS),
      process.env.BENCH_TOLERATE_FAILURES === '1',
    );
    await done(60_000);
    const sentPrompt = model.requests[model.requests.length - 1];
    model.requests.length = 0;
    // The first token, one visitor at a time, alternated with the model called straight.
    model.setBehaviour({ delayMs: STREAM_FIRST_DELAY_MS, chunkDelayMs: STREAM_CHUNK_DELAY_MS });
    const [through, direct]: number[][] = [[], []];
    const streaming = freshVisitors(1)[0];
    try {
      for (let i = 0; i < FIRST_TOKEN_REQUESTS; i++) {
        direct.push(await modelDirect(model.url, sentPrompt, true));
        through.push(await chatStream(streaming));
      }
    } finally {
      model.setBehaviour({ delayMs: 0, chunkDelayMs: 0 });
    }
    const firstTokenAdded = summary(through).p50 - summary(direct).p50;
    await done(60_000);
    model.requests.length = 0;
    cpu.postgres = (cpu.postgres ?? 0) + (cpu['postgres-other'] ?? 0);
    const cpuTotal = Object.entries(cpu).reduce((n, [group, v]) => (group === 'postgres-other' ? n : n + v), 0);
    const [rss, pss] = [memory.reduce((n, m) => n + m.rss, 0), memory.reduce((n, m) => n + m.pss, 0)];
    const l = summary(loop.latencies);
    console.log(
      `  ${label}: ${loop.rps.toFixed(0)} requests/s (${loop.latencies.length} at ${VISITORS} concurrent, p50 ${ms(l.p50)} ms), ` +
        `${crowd200.rps.toFixed(0)} at ${ONE_OWNER_VISITORS} concurrent; one visitor p50 ${ms(one.p50)} ms, p99 ${ms(one.p99)} ms; ` +
        `first token added p50 ${ms(firstTokenAdded)} ms (${FIRST_TOKEN_REQUESTS} streamed); at rest RSS ${rss.toFixed(0)} MB, PSS ${pss.toFixed(0)} MB` +
        (memory.length > 1 ? ` (RSS/PSS ${memory.map((m) => `${m.name} ${m.rss.toFixed(0)}/${m.pss.toFixed(0)}`).join(', ')})` : '') +
        `; prompt ${prompt.toFixed(0)} chars`,
    );
    console.log(
      `    CPU ${ms(cpuTotal)} ms/message: ${Object.keys(pids)
        .map((n) => `${n} ${ms(cpu[n] ?? 0)}`)
        .join(
          ', ',
        )}, postgres ${ms(cpu.postgres)} (other databases' backends ${ms(cpu['postgres-other'] ?? 0)}), redis ${ms(cpu.redis ?? 0)}` +
        (drained
          ? drainSeconds > 0.5
            ? ` (its work done ${drainSeconds.toFixed(1)} s after the loop)`
            : ''
          : ' (its work NOT done within 60 s)'),
    );
    if (layers) console.log(`    one visitor, mean ms a message in each process's histograms: ${layers}`);
    return { rps: loop.rps, rps200: crowd200.rps, firstTokenAdded, cpu, cpuTotal, oneP50: one.p50, rss, pss };
  } finally {
    await Promise.all(queues.map((q) => q.close()));
  }
}

const floorKnowledge = () => KNOWLEDGE.map((text) => ({ title: `${text.split(' ').slice(0, 8).join(' ')}…`, text }));

async function floorPhase(): Promise<void> {
  model.setBehaviour({ delayMs: 0, chunkDelayMs: 0 });
  const all: Kind[] = BENCH_BASE ? ['base', 'this', 'floor', 'architecture floor'] : ['this', 'floor', 'architecture floor'];
  // BENCH_FLOOR_KINDS=base,this: only those rounds (a before/after comparison in half the time).
  const only = process.env.BENCH_FLOOR_KINDS?.split(',').map((k) => k.trim());
  const order = only ? all.filter((k) => only.includes(k)) : all;
  const sequence = [...order, ...order];
  console.log(
    `floor (model: zero delay; each round: ${WARMUP} warm-up messages, RSS and PSS at rest, ${ONE_VISITOR} sequential from one visitor, ` +
      `${MEASURED} at ${VISITORS} concurrent with the CPU of the processes, PostgreSQL and Redis until their work is done, ` +
      `${MEASURED} at ${ONE_OWNER_VISITORS} concurrent, ${FIRST_TOKEN_REQUESTS} streamed one at a time; rounds ${sequence.join(', ')}):`,
  );
  const rounds: Record<Kind, FloorRound[]> = { this: [], base: [], floor: [], 'architecture floor': [] };
  for (const kind of sequence) {
    const n = rounds[kind].length + 1;
    if (kind === 'this' || kind === 'base') {
      await startParley(kind);
      rounds[kind].push(await floorRound(`${kind} ${n}`, () => stackChildren()));
      continue;
    }
    await freshRound();
    const common = {
      redisUrl: REDIS_URL,
      modelUrl: model.url,
      botName: BOT_NAME,
      knowledge: floorKnowledge(),
      ratePerMinute: 1_000_000,
      keyPrefix: queuePrefix,
    };
    const floor =
      kind === 'floor'
        ? await startFloor({ ...common, databaseUrl })
        : await startArchitectureFloor({ ...common, baseDatabaseUrl: BASE_DATABASE_URL, database: ARCHITECTURE_FLOOR_DATABASE });
    try {
      gateway = floor.url;
      uniqueId = floor.uniqueId;
      if ('pid' in floor) rounds.floor.push(await floorRound(`floor ${n}`, () => ({ floor: floor.pid })));
      else
        rounds[kind].push(
          await floorRound(
            `architecture floor ${n}`,
            () => floor.pids,
            async (timeoutMs) => (await floor.settled(timeoutMs)) !== false,
          ),
        );
    } finally {
      await floor.stop();
    }
  }
  const figures: [string, (r: FloorRound) => number, (n: number) => string][] = [
    [`requests/s, ${VISITORS} at once`, (r) => r.rps, (n) => n.toFixed(0)],
    [`requests/s, ${ONE_OWNER_VISITORS} at once`, (r) => r.rps200, (n) => n.toFixed(0)],
    ['CPU per message, PostgreSQL and Redis included (ms)', (r) => r.cpuTotal, ms],
    ['overhead p50, one visitor alone (ms)', (r) => r.oneP50, ms],
    [
      `time added to the first streamed token, p50 (ms; model: first content after ${STREAM_FIRST_DELAY_MS} + ${STREAM_CHUNK_DELAY_MS} ms)`,
      (r) => r.firstTokenAdded,
      ms,
    ],
    ['RSS at rest (MB)', (r) => r.rss, (n) => n.toFixed(0)],
    ['PSS at rest (MB)', (r) => r.pss, (n) => n.toFixed(0)],
  ];
  const kinds = order.filter((k) => rounds[k].length);
  const of = (k: Kind, f: (r: FloorRound) => number) => mean(rounds[k].map(f));
  const ratios: [string, Kind, Kind][] = [
    ['Parley ÷ floor', 'this', 'floor'],
    ['Parley ÷ architecture floor', 'this', 'architecture floor'],
    ...(BENCH_BASE ? ([['this ÷ base', 'this', 'base']] as [string, Kind, Kind][]) : []),
  ];
  console.log(`  means of ${rounds.this.length} rounds each ("this" is Parley in this checkout):`);
  console.log(`  | figure | ${kinds.join(' | ')} | ${ratios.map(([name]) => name).join(' | ')} |`);
  console.log(`  | --- | ${[...kinds, ...ratios].map(() => '---').join(' | ')} |`);
  for (const [name, f, format] of figures)
    console.log(
      `  | ${name} | ${kinds.map((k) => format(of(k, f))).join(' | ')} | ${ratios.map(([, a, b]) => ratio(of(a, f), of(b, f))).join(' | ')} |`,
    );
}

/** process.hrtime in microseconds: the clock of V8's CPU profiles (CLOCK_MONOTONIC on Linux). */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
/** Rows of the profile phase's tables per process. */
const PROFILE_ROWS = 15;

interface ProfiledLoop {
  pids: Record<string, number>;
  window: { fromUs: number; toUs: number };
  messages: number;
  cpu: Record<string, number>;
}

/** Warm-up, then MEASURED messages from VISITORS in a closed loop until `settled`: the window the profiles are read over. */
async function profiledLoop(
  label: string,
  pids: Record<string, number>,
  settled: (timeoutMs: number) => Promise<boolean>,
): Promise<ProfiledLoop> {
  const crowd = freshVisitors(VISITORS);
  await load(WARMUP * 2, VISITORS, chatJson, crowd);
  await settled(60_000);
  const before = tickSnapshot(pids);
  const fromUs = monotonicUs();
  const loop = await load(MEASURED, VISITORS, chatJson, crowd);
  if (!(await settled(60_000))) console.log(`  ${label}: its work was NOT done within 60 s`);
  const window = { fromUs, toUs: monotonicUs() };
  const messages = loop.latencies.length;
  const cpu = cpuPerMessage(before, tickSnapshot(pids), messages);
  model.requests.length = 0;
  console.log(
    `  ${label}: ${messages} messages, ${loop.rps.toFixed(0)} requests/s under the profiler; CPU ms/message ${Object.entries(cpu)
      .filter(([, v]) => v >= 0.005)
      .map(([g, v]) => `${g} ${ms(v)}`)
      .join(', ')}`,
  );
  return { pids, window, messages, cpu };
}

/** Each process's profile (written when it stopped) over the loop's window, as ms a message. */
function printProfiles(dir: string, { pids, window, messages, cpu }: ProfiledLoop): void {
  const files = readdirSync(dir);
  const share = (v: number, total: number) => `${ms(v / messages)} (${((v / total) * 100).toFixed(0)} %)`;
  for (const [name, pid] of Object.entries(pids)) {
    const file = files.find((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.`));
    if (!file) {
      console.log(`  ${name}: no profile written (pid ${pid})`);
      continue;
    }
    const split = profileSplit(join(dir, file), root, window);
    // On a busy machine a sample also stands for the time the process waited for a core: the shares
    // are the profile's, the milliseconds the process's CPU time from /proc shared out by them.
    const procMs = (cpu[name] ?? 0) * messages;
    const rows = (title: string, entries: [string, number][]) =>
      console.log(
        `    ${title}: ${entries
          .slice(0, PROFILE_ROWS)
          .map(([k, v]) => `${k} ${share((v / split.totalMs) * procMs, procMs)}`)
          .join('; ')}`,
      );
    console.log(
      `  ${name} (${file}): ${ms(cpu[name] ?? 0)} ms of CPU a message (/proc; the samples span ${ms(split.totalMs / messages)} ms), self time in ms a message:`,
    );
    rows('by function', split.byFunction);
    rows('by origin', split.byOrigin);
    rows("by the nearest of this repository's functions on the stack", split.byOwnCaller);
    rows("this repository's functions with the work under them (inclusive, overlapping)", split.byOwnInclusive);
  }
}

/**
 * Where each process spends its CPU under VISITORS in a closed loop, Parley's five, then the
 * architecture floor's three: each started with `node --cpu-prof` (the profiles written when it
 * stops, into BENCH_PROFILE_DIR or a new temporary directory), warmed up, then MEASURED messages;
 * each profile's samples between the loop's start and the end of its work, as ms a message, by
 * function, by where the code comes from, by the nearest function of this repository on the stack,
 * and by this repository's functions with the work under them. The profiler itself costs a little.
 */
async function profilePhase(): Promise<void> {
  model.setBehaviour({ delayMs: 0, chunkDelayMs: 0 });
  const dir = process.env.BENCH_PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'parley-cpu-profiles-'));
  const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${dir}`.trim();
  console.log(
    `profile (zero-delay model, ${MEASURED} messages at ${VISITORS} concurrent after ${WARMUP * 2} warm-up; profiles in ${dir}):`,
  );

  await freshRound();
  stack = await startStack({
    portOffset: PORT_OFFSET,
    output: process.env.BENCH_LOGS ? 'inherit' : 'quiet',
    env: { ...stackEnv(), NODE_OPTIONS: nodeOptions },
  });
  gateway = stack.url.replace('localhost', '127.0.0.1');
  await prepareOwner();
  const queues = Object.values(QUEUES).map((name) => new Queue(name, { connection: { url: REDIS_URL }, prefix: queuePrefix }));
  let parley: ProfiledLoop;
  try {
    parley = await profiledLoop('Parley', stackChildren(), (timeoutMs) => queuesDrained(queues, timeoutMs));
  } finally {
    await Promise.all(queues.map((q) => q.close()));
    await stack.stop();
    stack = undefined;
  }

  await freshRound();
  const floor = await startArchitectureFloor({
    baseDatabaseUrl: BASE_DATABASE_URL,
    database: ARCHITECTURE_FLOOR_DATABASE,
    redisUrl: REDIS_URL,
    modelUrl: model.url,
    botName: BOT_NAME,
    knowledge: floorKnowledge(),
    ratePerMinute: 1_000_000,
    keyPrefix: queuePrefix,
    nodeOptions,
  });
  let architectureFloor: ProfiledLoop;
  try {
    gateway = floor.url;
    uniqueId = floor.uniqueId;
    architectureFloor = await profiledLoop(
      'architecture floor',
      floor.pids,
      async (timeoutMs) => (await floor.settled(timeoutMs)) !== false,
    );
  } finally {
    await floor.stop();
  }
  console.log('  Parley:');
  printProfiles(dir, parley);
  console.log('  architecture floor:');
  printProfiles(dir, architectureFloor);
}

/**
 * The first-message burst: `n` new visitors (new addresses, new conversations) send their first
 * message at the same moment to a new chatbot of a new owner (one the warmed stack has not answered
 * for yet, as a chatbot whose page suddenly draws a crowd), then each sends BURST_MESSAGES − 1 more,
 * one after the other, continuing with the session id the server returned. The first answers'
 * latencies against those of the third to last messages (the visitors' conversations by then under way).
 */
async function firstMessageBurst(n: number) {
  const benchChatbot = uniqueId;
  await prepareOwner();
  try {
    return await burstOn(n);
  } finally {
    uniqueId = benchChatbot;
  }
}

async function burstOn(n: number) {
  const crowd = freshVisitors(n, burstBlock++);
  const first: number[] = [];
  const later: number[] = [];
  let failed = 0;
  let firstDone = 0;
  let firstError = '';
  // Where the time goes: each process's histograms over the first answers (until the last is in),
  // then over the rest.
  const atStart = await durationTotals();
  let atFirstDone: Promise<Map<string, { sum: number; count: number }>> | undefined;
  await Promise.all(
    crowd.map(async (v) => {
      for (let i = 0; i < BURST_MESSAGES; i++) {
        try {
          const t = await chatJson(v);
          if (i === 0) first.push(t);
          else if (i >= 2) later.push(t);
        } catch (err) {
          failed++;
          firstError ||= (err as Error).message;
        }
        if (i === 0 && ++firstDone === n) atFirstDone = durationTotals();
      }
    }),
  );
  const [firstTotals, end] = [await atFirstDone!, await durationTotals()];
  if (failed) console.log(`    ${failed} of ${n * BURST_MESSAGES} burst messages failed (first: ${firstError})`);
  console.log(`    until the last first answer, mean ms a message in each process's histograms: ${perMessage(atStart, firstTotals, n)}`);
  console.log(`    after it: ${perMessage(firstTotals, end, n * (BURST_MESSAGES - 1))}`);
  return { first: summary(first), later: summary(later), failed };
}

interface BurstRun {
  firstP50: number;
  firstP99: number;
  laterP50: number;
  laterP99: number;
}

interface OneOwnerRun {
  rps: number;
  p50: number;
  p99: number;
  fairness: number;
}

async function oneOwnerPhase(): Promise<void> {
  const order: Kind[] = BENCH_BASE ? ['base', 'this', 'base', 'this'] : ['this'];
  console.log(
    `one owner (model answers after ${ONE_OWNER_MODEL_DELAY_MS} ms; each round: warm-up, then ${ONE_OWNER_MESSAGES} messages from ${ONE_OWNER_VISITORS} ` +
      `visitors at once on the one chatbot, then ${ONE_OWNER_MESSAGES} from ${VISITORS}; fairness = slowest visitor's mean latency ÷ fastest's; rounds ${order.join(', ')}):`,
  );
  const runs: Record<string, OneOwnerRun[]> = {};
  const bursts: Record<string, BurstRun[]> = {};
  try {
    const seen: Record<string, number> = {};
    for (const kind of order) {
      await startParley(kind as 'this' | 'base');
      const n = (seen[kind] = (seen[kind] ?? 0) + 1);
      model.setBehaviour({ delayMs: ONE_OWNER_MODEL_DELAY_MS, chunkDelayMs: 0 });
      const crowd = freshVisitors(ONE_OWNER_VISITORS);
      // Not a figure: a cold stack may refuse some of 200 messages at once (their count is printed).
      await load(Math.max(WARMUP, ONE_OWNER_VISITORS), ONE_OWNER_VISITORS, chatJson, crowd, true);
      // The burst on the warmed stack: what differs from a later message is the first message's own work.
      for (let b = 0; b < BURST_ROUNDS; b++) {
        const burst = await firstMessageBurst(ONE_OWNER_VISITORS);
        model.requests.length = 0;
        (bursts[kind] ??= []).push({
          firstP50: burst.first.p50,
          firstP99: burst.first.p99,
          laterP50: burst.later.p50,
          laterP99: burst.later.p99,
        });
        console.log(
          `  ${kind} ${n}, burst ${b + 1}: ${ONE_OWNER_VISITORS} first messages at once, then ${BURST_MESSAGES - 1} more each: first answers p50 ` +
            `${ms(burst.first.p50)} ms, p99 ${ms(burst.first.p99)} ms, max ${ms(burst.first.max)} ms; 3rd–${BURST_MESSAGES}th messages p50 ` +
            `${ms(burst.later.p50)} ms, p99 ${ms(burst.later.p99)} ms; first p99 ÷ later p50 ${ratio(burst.first.p99, burst.later.p50)} (target ≤ 3)`,
        );
      }
      const atConcurrency: number[] = [];
      for (const concurrency of [ONE_OWNER_VISITORS, VISITORS]) {
        const pids = stackChildren();
        const ticks = tickSnapshot(pids);
        const run = await load(ONE_OWNER_MESSAGES, concurrency, chatJson, crowd, true);
        const cpu = cpuPerMessage(ticks, tickSnapshot(pids), run.latencies.length);
        model.requests.length = 0;
        const l = summary(run.latencies);
        const means = run.perVisitor.map(mean);
        const fairness = Math.max(...means) / Math.min(...means);
        (runs[`${kind} ${concurrency}`] ??= []).push({ rps: run.rps, p50: l.p50, p99: l.p99, fairness });
        atConcurrency.push(run.rps);
        console.log(
          `  ${kind} ${n}, ${concurrency} visitors: ${run.rps.toFixed(0)} requests/s; latency p50 ${ms(l.p50)} ms, p95 ${ms(l.p95)} ms, ` +
            `p99 ${ms(l.p99)} ms, max ${ms(l.max)} ms; p99 ÷ p50 ${ratio(l.p99, l.p50)}; fairness ${ratio(Math.max(...means), Math.min(...means))} ` +
            `(${run.perVisitor.length} visitors, ${ms(Math.min(...means))}–${ms(Math.max(...means))} ms); ${run.errors} failed`,
        );
        // The machine's cores in use while the answers ran (the queues' consumers may finish later).
        const cpuTotal = Object.values(cpu).reduce((n, v) => n + v, 0);
        console.log(
          `    CPU ${ms(cpuTotal)} ms/message (${Object.entries(cpu)
            .filter(([, v]) => v >= 0.005)
            .map(([g, v]) => `${g} ${ms(v)}`)
            .join(', ')}), ${((cpuTotal * run.rps) / 1000).toFixed(2)} of ${cpus().length} cores busy`,
        );
      }
      console.log(`  ${kind} ${n}: requests/s at ${ONE_OWNER_VISITORS} ÷ at ${VISITORS} = ${ratio(atConcurrency[0], atConcurrency[1])}`);
      model.setBehaviour({ delayMs: 0 });
    }
  } finally {
    model.setBehaviour({ delayMs: 0 });
  }
  for (const [kind, bs] of Object.entries(bursts)) {
    const m = (k: keyof BurstRun) => mean(bs.map((r) => r[k]));
    console.log(
      `  ${kind}, burst (means of ${bs.length}): first answers p50 ${ms(m('firstP50'))} ms, p99 ${ms(m('firstP99'))} ms; later p50 ` +
        `${ms(m('laterP50'))} ms, p99 ${ms(m('laterP99'))} ms; first p99 ÷ later p50 ${ratio(m('firstP99'), m('laterP50'))}`,
    );
  }
  if (!BENCH_BASE) return;
  if (bursts.this && bursts.base) {
    const m = (bs: BurstRun[], k: keyof BurstRun) => mean(bs.map((r) => r[k]));
    console.log(
      `  this ÷ base, burst: first answers p50 ${ratio(m(bursts.this, 'firstP50'), m(bursts.base, 'firstP50'))}, ` +
        `p99 ${ratio(m(bursts.this, 'firstP99'), m(bursts.base, 'firstP99'))}; later p50 ${ratio(m(bursts.this, 'laterP50'), m(bursts.base, 'laterP50'))}`,
    );
  }
  for (const concurrency of [ONE_OWNER_VISITORS, VISITORS]) {
    const [t, b] = [runs[`this ${concurrency}`], runs[`base ${concurrency}`]];
    const m = (rs: OneOwnerRun[], k: keyof OneOwnerRun) => mean(rs.map((r) => r[k]));
    console.log(
      `  this ÷ base at ${concurrency} visitors (means of ${t.length} rounds): requests/s ${ratio(m(t, 'rps'), m(b, 'rps'))}, ` +
        `p50 ${ratio(m(t, 'p50'), m(b, 'p50'))}, p99 ${ratio(m(t, 'p99'), m(b, 'p99'))}, fairness ${ratio(m(t, 'fairness'), m(b, 'fairness'))}`,
    );
  }
}

try {
  console.log(
    `public chat benchmark: ${cpus().length} CPUs, Node ${process.version}, database ${DATABASE}, ${VISITORS} visitors, client ${useFetch ? 'fetch' : 'node:http'}`,
  );
  if (classic) await classicPhases();
  if (phases.has('floor')) await floorPhase();
  if (phases.has('one-owner')) await oneOwnerPhase();
  if (phases.has('profile')) await profilePhase();
} finally {
  if (secondChat && secondChat.exitCode === null) {
    const exited = new Promise((r) => secondChat!.once('exit', r));
    secondChat.kill('SIGTERM');
    await Promise.race([exited, sleep(20_000)]);
    if (secondChat.exitCode === null) secondChat.kill('SIGKILL');
  }
  await stack?.stop();
  clientAgent.destroy();
  await proxy.close();
  await model.close();
  if (process.env.BENCH_KEEP !== '1') {
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${ARCHITECTURE_FLOOR_DATABASE} WITH (FORCE)`);
    for (const prefix of prefixes) await dropRedisKeys(`${prefix}:*`);
  } else
    console.log(`kept databases ${DATABASE}, ${ARCHITECTURE_FLOOR_DATABASE} and Redis keys ${prefixes.map((p) => `${p}:*`).join(', ')}`);
  await admin.end();
}

/** The phases on one stack started once (paced, overhead, first-token, scaling and the others but floor and one-owner). */
async function classicPhases(): Promise<void> {
  let startedAt = performance.now();
  stack = await start();
  gateway = stack.url.replace('localhost', '127.0.0.1');
  console.log(`stack ready in ${((performance.now() - startedAt) / 1000).toFixed(1)} s (gateway ${gateway}, chat service direct)`);
  await prepareOwner();

  // 1. Overhead with a zero-latency model.
  await load(WARMUP, VISITORS, chatJson);
  const sentPrompt = model.requests[model.requests.length - 1];
  model.requests.length = 0;
  const modelAlone: number[] = [];
  for (let i = 0; i < MODEL_SAMPLES; i++) modelAlone.push(await modelDirect(model.url, sentPrompt, false));
  const modelConcurrent = await (async () => {
    const out: number[] = [];
    let i = 0;
    await Promise.all(
      Array.from({ length: VISITORS }, async () => {
        while (i++ < MODEL_SAMPLES * 2) out.push(await modelDirect(model.url, sentPrompt, false));
      }),
    );
    return out;
  })();
  const m1 = summary(modelAlone);
  const m50 = summary(modelConcurrent);
  console.log(
    `model alone (the fake, zero delay, called from this process with the chat service's prompt of ${sentPrompt.messages.reduce((n, m) => n + m.content.length, 0)} chars): ` +
      `sequential p50 ${ms(m1.p50)} ms, p99 ${ms(m1.p99)} ms; at ${VISITORS} concurrent p50 ${ms(m50.p50)} ms, p99 ${ms(m50.p99)} ms`,
  );

  if (phases.has('idle')) {
    // What the stack costs with nobody chatting (timers, queue workers, pools), for comparison.
    const pids = stackPids();
    const before = cpuSnapshot(pids);
    await new Promise((r) => setTimeout(r, 20_000));
    console.log(`idle for 20 s: ${cpuSplit(before, cpuSnapshot(pids))}`);
  }

  if (phases.has('paced')) {
    const pids = stackPids();
    const before = cpuSnapshot(pids);
    const run = await paced(chatJson);
    const after = cpuSnapshot(pids);
    model.requests.length = 0;
    const p = summary(run.latencies.map((t) => t - m1.p50));
    console.log(
      `paced (${VISITORS} visitors, each thinking ${THINK_MIN_MS / 1000}–${THINK_MAX_MS / 1000} s between messages, ${run.latencies.length} JSON messages in ${run.seconds.toFixed(1)} s): ` +
        `${run.rps.toFixed(1)} requests/s; stack overhead (latency minus the model's p50 ${ms(m1.p50)} ms) p50 ${ms(p.p50)} ms, p95 ${ms(p.p95)} ms, p99 ${ms(p.p99)} ms, max ${ms(p.max)} ms`,
    );
    console.log(`  ${cpuSplit(before, after)}`);
  }

  if (phases.has('overhead')) {
    const sequential = summary((await load(Math.round(MEASURED / 10), 1, chatJson)).latencies);
    console.log(
      `one visitor alone (${Math.round(MEASURED / 10)} sequential JSON messages): p50 ${ms(sequential.p50)} ms, p95 ${ms(sequential.p95)} ms, p99 ${ms(sequential.p99)} ms`,
    );
    const pids = stackPids();
    const before = cpuSnapshot(pids);
    const overhead = await load(MEASURED, VISITORS, chatJson);
    const after = cpuSnapshot(pids);
    model.requests.length = 0;
    const o = summary(overhead.latencies);
    console.log(
      `overhead (${MEASURED} JSON messages, ${VISITORS} concurrent visitors, after ${WARMUP} warm-up): ` +
        `p50 ${ms(o.p50)} ms, p95 ${ms(o.p95)} ms, p99 ${ms(o.p99)} ms, max ${ms(o.max)} ms, mean ${ms(o.mean)} ms; ${overhead.rps.toFixed(0)} requests/s`,
    );
    console.log(
      `  minus the model's own time (p50 ${ms(m1.p50)} ms): stack overhead p50 ≈ ${ms(o.p50 - m1.p50)} ms, p99 ≈ ${ms(o.p99 - m1.p50)} ms`,
    );
    console.log(`  ${cpuSplit(before, after)}`);
  }

  // 1b. What the analytics consumer (ADR 18) costs the answers, in one run: the same one-visitor and
  // closed-loop measurements with the chat service's analytics worker running and paused (its jobs
  // wait in Redis, then are applied before the next round), alternated twice so both see the same
  // machine. The analytics event is published in both (that is part of the answer's path).
  if (phases.has('consumers')) {
    const analytics = new Queue(QUEUES.chatbotInteractionAnalytics, {
      connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
      prefix: queuePrefix,
    });
    const drained = async () => {
      for (const deadline = Date.now() + PHASE_DEADLINE_MS; ; await sleep(200)) {
        const c = await analytics.getJobCounts();
        if ((c.waiting ?? 0) + (c.active ?? 0) + (c.paused ?? 0) + (c.prioritized ?? 0) === 0) return;
        if (Date.now() > deadline) throw new Error('the analytics consumer did not catch up');
      }
    };
    const rounds: Record<'running' | 'paused', { one: number[]; rps: number[]; p50: number[] }> = {
      running: { one: [], rps: [], p50: [] },
      paused: { one: [], rps: [], p50: [] },
    };
    try {
      // A closed loop first, unreported: the processes' code warmed up before the first round counts.
      await load(MEASURED, VISITORS, chatJson);
      for (const mode of ['running', 'paused', 'paused', 'running'] as const) {
        await drained();
        if (mode === 'paused') await analytics.pause();
        const one = summary((await load(Math.round(MEASURED / 10), 1, chatJson)).latencies);
        const loop = await load(MEASURED, VISITORS, chatJson);
        model.requests.length = 0;
        if (mode === 'paused') await analytics.resume();
        rounds[mode].one.push(one.p50);
        rounds[mode].rps.push(loop.rps);
        rounds[mode].p50.push(summary(loop.latencies).p50);
        console.log(
          `analytics consumer ${mode}: one visitor p50 ${ms(one.p50)} ms; ${VISITORS} visitors ${loop.rps.toFixed(0)} requests/s, p50 ${ms(summary(loop.latencies).p50)} ms`,
        );
      }
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const [r, p] = [rounds.running, rounds.paused];
      console.log(
        `  analytics consumer running vs paused (means of two rounds): one visitor p50 ${ms(mean(r.one))} vs ${ms(mean(p.one))} ms ` +
          `(${mean(r.one) - mean(p.one) >= 0 ? '+' : ''}${ms(mean(r.one) - mean(p.one))} ms); ${mean(r.rps).toFixed(0)} vs ${mean(p.rps).toFixed(0)} requests/s ` +
          `(${(((mean(r.rps) - mean(p.rps)) / mean(p.rps)) * 100).toFixed(1)} %)`,
      );
    } finally {
      await analytics.resume().catch(() => undefined);
      await drained().catch(() => undefined);
      await analytics.close();
    }
  }

  // 1c. What the processes' memory settings (PROCESS_MEMORY in scripts/stack.ts) cost the answers and
  // what they save, in one run: the stack restarted with them and with the runtimes' own sizing,
  // alternated twice (ending with them, for the phases after). Each round warms up, measures one
  // visitor alone and the closed loop, then reads each process's RSS peak since it started (VmHWM).
  if (phases.has('memory')) {
    type Round = { one: number[]; rps: number[]; peaks: Record<string, number>[] };
    const rounds: Record<'parley' | 'runtime-defaults', Round> = {
      parley: { one: [], rps: [], peaks: [] },
      'runtime-defaults': { one: [], rps: [], peaks: [] },
    };
    const peakRss = (pid: number) => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
    const label = { parley: "Parley's memory settings", 'runtime-defaults': "the runtimes' own sizing" };
    for (const memory of ['parley', 'runtime-defaults', 'runtime-defaults', 'parley'] as const) {
      await stack.stop();
      stack = undefined;
      stack = await start(undefined, memory);
      await load(WARMUP, VISITORS, chatJson);
      const one = summary((await load(Math.round(MEASURED / 10), 1, chatJson)).latencies);
      const loop = await load(MEASURED, VISITORS, chatJson);
      model.requests.length = 0;
      const peaks = Object.fromEntries(Object.entries(stackChildren()).map(([name, pid]) => [name, peakRss(pid)]));
      rounds[memory].one.push(one.p50);
      rounds[memory].rps.push(loop.rps);
      rounds[memory].peaks.push(peaks);
      console.log(
        `${label[memory]}: one visitor p50 ${ms(one.p50)} ms; ${VISITORS} visitors ${loop.rps.toFixed(0)} requests/s, p50 ${ms(summary(loop.latencies).p50)} ms; ` +
          `peak RSS ${Object.entries(peaks)
            .map(([name, mb]) => `${name} ${mb.toFixed(0)} MB`)
            .join(', ')}`,
      );
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const [p, d] = [rounds.parley, rounds['runtime-defaults']];
    console.log(
      `  Parley's settings vs the runtimes' own (means of two rounds): one visitor p50 ${ms(mean(p.one))} vs ${ms(mean(d.one))} ms; ` +
        `${mean(p.rps).toFixed(0)} vs ${mean(d.rps).toFixed(0)} requests/s (${(((mean(p.rps) - mean(d.rps)) / mean(d.rps)) * 100).toFixed(1)} %); peak RSS ` +
        Object.keys(p.peaks[0])
          .map((name) => `${name} ${mean(p.peaks.map((x) => x[name])).toFixed(0)} vs ${mean(d.peaks.map((x) => x[name])).toFixed(0)} MB`)
          .join(', '),
    );
  }

  // 2. First token with a streaming model.
  if (phases.has('first-token')) {
    model.setBehaviour({ delayMs: STREAM_FIRST_DELAY_MS, chunkDelayMs: STREAM_CHUNK_DELAY_MS });
    for (let i = 0; i < 10; i++) await chatStream(visitors[i]);
    const gatewaySeq: number[] = [];
    const directSeq: number[] = [];
    for (let i = 0; i < FIRST_TOKEN_REQUESTS; i++) {
      // Alternated, so both see the same background load.
      directSeq.push(await modelDirect(model.url, sentPrompt, true));
      gatewaySeq.push(await chatStream(visitors[i % VISITORS]));
    }
    const concurrentGateway = await load(FIRST_TOKEN_REQUESTS, FIRST_TOKEN_CONCURRENT, chatStream);
    const concurrentDirect = await load(FIRST_TOKEN_REQUESTS, FIRST_TOKEN_CONCURRENT, () => modelDirect(model.url, sentPrompt, true));
    model.requests.length = 0;
    const firstToken = (label: string, gw: number[], direct: number[]) => {
      const g = summary(gw);
      const d = summary(direct);
      const added = summary(gw.map((t) => t - d.p50));
      console.log(
        `first token, ${label}: through the gateway p50 ${ms(g.p50)} ms, p95 ${ms(g.p95)} ms; model direct p50 ${ms(d.p50)} ms, p95 ${ms(d.p95)} ms; ` +
          `added by the stack p50 ${ms(added.p50)} ms, p95 ${ms(added.p95)} ms, max ${ms(added.max)} ms`,
      );
    };
    console.log(
      `first token (model: first content after ${STREAM_FIRST_DELAY_MS} + ${STREAM_CHUNK_DELAY_MS} ms, then a chunk every ${STREAM_CHUNK_DELAY_MS} ms):`,
    );
    firstToken(`${FIRST_TOKEN_REQUESTS} sequential`, gatewaySeq, directSeq);
    firstToken(`${FIRST_TOKEN_REQUESTS} at ${FIRST_TOKEN_CONCURRENT} concurrent`, concurrentGateway.latencies, concurrentDirect.latencies);
    model.setBehaviour({ delayMs: 0, chunkDelayMs: 0 });
  }

  // 3. Scaling: the gateway talks to the chat service through the proxy, first to one instance, then two.
  if (phases.has('scaling')) {
    await stack.stop();
    stack = undefined;
    startedAt = performance.now();
    stack = await start(proxy.url);
    console.log(`stack restarted with CHAT_URL at the round-robin proxy in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
    // Each instance count is measured twice: with every process of the stack running, and with the
    // queue consumers (billing's usage worker, the chatbot service's interaction workers, the chat
    // service's analytics worker) paused, as if
    // they ran on other machines: their jobs wait in Redis and are applied once the run is over (the
    // next run starts when both queues are empty again), so that run measures the answering path alone.
    const consumerQueues = [
      QUEUES.usageRecorded,
      QUEUES.chatbotInteraction,
      QUEUES.chatbotInteractionsCounted,
      QUEUES.chatbotInteractionAnalytics,
    ].map((name) => new Queue(name, { connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }, prefix: queuePrefix }));
    const drained = async () => {
      const deadline = Date.now() + PHASE_DEADLINE_MS;
      for (;;) {
        const counts = await Promise.all(consumerQueues.map((q) => q.getJobCounts()));
        if (counts.every((c) => (c.waiting ?? 0) + (c.active ?? 0) + (c.paused ?? 0) + (c.prioritized ?? 0) === 0)) return;
        if (Date.now() > deadline) throw new Error('the queue consumers did not catch up');
        await sleep(200);
      }
    };
    const scaling: Record<'all' | 'deferred', number[]> = { all: [], deferred: [] };
    try {
      for (const instances of [1, 2]) {
        const extra: Record<string, number> = {};
        if (instances === 2) {
          const chat = PROCESSES.find((p) => p.name === 'chat')!;
          const urls = Object.fromEntries(
            PROCESSES.filter((p) => p.urlVar).map((p) => [p.urlVar!, `http://127.0.0.1:${p.defaultPort + PORT_OFFSET}`]),
          );
          secondChat = spawn(process.execPath, [...PROCESS_MEMORY.nodeFlags, join(root, chat.entry)], {
            cwd: root,
            env: { ...process.env, ...PROCESS_MEMORY.env, ...urls, ...stackEnv(proxy.url), PORT: String(SECOND_CHAT_PORT) },
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          secondChat.stderr!.on('data', (chunk: Buffer) => {
            if (process.env.BENCH_LOGS || /error|fatal/i.test(chunk.toString()))
              process.stdout.write(`[chat-2] ${chunk.toString().slice(0, 500)}`);
          });
          const readyBy = Date.now() + 60_000;
          for (;;) {
            const ok = await fetch(`http://127.0.0.1:${SECOND_CHAT_PORT}/readyz`).then(
              (r) => r.ok,
              () => false,
            );
            if (ok) break;
            if (Date.now() > readyBy || secondChat.exitCode !== null) throw new Error('the second chat instance did not become ready');
            await sleep(200);
          }
          proxy.targets.push(new URL(`http://127.0.0.1:${SECOND_CHAT_PORT}`));
          extra['chat-2'] = secondChat.pid!;
        }
        proxy.dropIdle();
        await load(WARMUP, VISITORS, chatJson);
        for (const mode of ['all', 'deferred'] as const) {
          await drained();
          if (mode === 'deferred') for (const q of consumerQueues) await q.pause();
          const p = stackPids(extra);
          const a = cpuSnapshot(p);
          const run = await load(MEASURED, VISITORS, chatJson);
          const b = cpuSnapshot(p);
          if (mode === 'deferred') for (const q of consumerQueues) await q.resume();
          model.requests.length = 0;
          const s = summary(run.latencies);
          scaling[mode].push(run.rps);
          const label = mode === 'all' ? 'whole stack' : 'queue consumers paused';
          console.log(
            `scaling, ${instances} chat instance${instances > 1 ? 's' : ''} behind the proxy, ${label}: ${run.rps.toFixed(0)} requests/s, p50 ${ms(s.p50)} ms, p99 ${ms(s.p99)} ms`,
          );
          console.log(`  ${cpuSplit(a, b)}`);
        }
      }
      await drained();
    } finally {
      for (const q of consumerQueues) await q.resume().catch(() => {});
      for (const q of consumerQueues) await q.close();
    }
    console.log(
      `scaling ratio (2 instances / 1): whole stack ${(scaling.all[1] / scaling.all[0]).toFixed(2)}; ` +
        `queue consumers paused ${(scaling.deferred[1] / scaling.deferred[0]).toFixed(2)}`,
    );
  }
}

/** Redis commands the server has run, scripts' own included, less blocking waits and INFO (as test/message-budget.test.ts counts). */
async function redisCommandCount(): Promise<number> {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    const info = await redis.info('commandstats');
    let n = 0;
    for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
      if (!/^(bzpopmin|bzpopmax|bzmpop|blpop|brpop|brpoplpush|blmove|blmpop|info)$/.test(m[1])) n += Number(m[2]);
    return n;
  } finally {
    await redis.quit();
  }
}

/** The run's queues, counters and kept turns, so that runs do not pile up in Redis. */
async function dropRedisKeys(match: string): Promise<void> {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    await unlinkMatching(redis, match);
  } finally {
    await redis.quit();
  }
}
