// The chat service scaled out on one machine (a script that prints figures, not a test): the whole
// product with three chat service replicas behind one CHAT_URL (a list of four addresses, the fourth
// not yet running), the fake model, and 200 visitors chatting through the gateway. Each replica
// calls the model through a counting proxy of its own, so the figures say which replica answered what.
//   1. even spread: each replica's share of the answers (target: within ±15 % of even);
//   2. SIGTERM to one replica mid-load: failed answers, and usage records lost or doubled;
//   3. SIGKILL to one replica mid-load: only its answers in flight fail, each with the clear 503 or
//      the stream's error event;
//   4. a fourth replica started mid-load: its share of the answers in the 10 s after it is ready
//      (target: at least 15 %);
//   5. one conversation continued across replicas (its later prompts carry its earlier turns);
//   6. billing once the queues are drained: nothing billed twice, no answered message unbilled.
//
//   node bench/scale-out.ts            (or: npm run bench scale-out)
//
// Uses its own database (parley_bench_scale, or BENCH_DATABASE) and queue prefix, dropped at the end
// (BENCH_KEEP=1 keeps them), ports 500 above the defaults (or BENCH_PORT_OFFSET). BENCH_LOGS=1 shows
// the stack's logs. Exits with code 1 when a target is missed.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import { cpus } from 'node:os';
import { Queue } from 'bullmq';
import pg from 'pg';
import { QUEUES } from '../services/common/src/queues.ts';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { startFakeOpenAI, type FakeOpenAIRequest } from '../services/common/src/testing/fake-openai.ts';
import { PROCESS_MEMORY, root, startStack, type RunningStack } from '../scripts/stack.ts';
import { classifyChat as classify, freshDatabase, postJson, postText, type ChatOutcome as Outcome } from './bench-stack.ts';
import { load as loadAvg, mulberry32 } from './stats.ts';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE = process.env.BENCH_DATABASE ?? 'parley_bench_scale';
if (!/^[a-z_][a-z0-9_]*$/.test(DATABASE)) throw new Error(`BENCH_DATABASE must be a plain database name, got "${DATABASE}"`);
const PORT_OFFSET = Number(process.env.BENCH_PORT_OFFSET ?? '500');
const CHAT_PORT = 4003 + PORT_OFFSET;
const VISITORS = 200;
/** The model: headers after MODEL_DELAY_MS, then 20 streamed chunks MODEL_CHUNK_MS apart. */
const MODEL_DELAY_MS = 100;
const MODEL_CHUNK_MS = 20;
const THINK_MIN_MS = 500;
const THINK_MAX_MS = 1_500;
const SHARE_WINDOW_MS = 20_000;
const JOIN_WINDOW_MS = 10_000;
const CLIENT_TIMEOUT_MS = 90_000;
const BENCH_CREDIT = '50';
const SERVICE_SECRET = randomBytes(32).toString('base64url');

const sleep = (n: number) => new Promise<void>((r) => setTimeout(r, n));
const rand = mulberry32(20261128);

// --- The model, seen through one counting proxy per replica ---------------------------------------

interface ModelCall {
  replica: string;
  key: string;
  /** The visitor's earlier questions the prompt carries (the conversation's history). */
  history: string[];
  startedAt: number;
}
const modelCalls: ModelCall[] = [];
const keyOf = (text: string) => /\[((?:v\d+|warm|talk)\.\d+)\]/.exec(text)?.[1] ?? '?';

function startCountingProxy(replica: string, target: URL): Promise<{ url: string; close(): Promise<void> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (req.url?.endsWith('/chat/completions')) {
        try {
          const users = (JSON.parse(raw.toString('utf8')) as FakeOpenAIRequest).messages
            .filter((m) => m.role === 'user')
            .map((m) => String(m.content));
          modelCalls.push({
            replica,
            key: keyOf(users.at(-1) ?? ''),
            history: users.slice(0, -1).map(keyOf),
            startedAt: performance.now(),
          });
        } catch {
          // not JSON: the fake answers 400
        }
      }
      const upstream = httpRequest(
        { agent, host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      res.on('close', () => res.writableFinished || upstream.destroy());
      upstream.end(raw);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
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

// --- Visitors --------------------------------------------------------------------------------------

interface Sent {
  key: string;
  stream: boolean;
  sentAt: number;
  doneAt: number;
  outcome: Outcome;
  detail: string;
  sessionId?: string;
}
const sent: Sent[] = [];
let running = true;
let gateway = '';
let uniqueId = '';

const clientAgent = new Agent({ keepAlive: false, maxSockets: Infinity });
const post = (url: string, headers: Record<string, string>, body: string) => postText(clientAgent, url, headers, body, CLIENT_TIMEOUT_MS);

async function message(key: string, stream: boolean, ip: string, sessionId?: string): Promise<Sent> {
  const sentAt = performance.now();
  let result: ReturnType<typeof classify>;
  try {
    const res = await post(
      `${gateway}/api/chatbot/public/${uniqueId}/chat`,
      { 'content-type': 'application/json', 'x-forwarded-for': ip, ...(stream ? { accept: 'text/event-stream' } : {}) },
      JSON.stringify({ ...(sessionId ? { sessionId } : {}), message: `What are your opening hours? [${key}]` }),
    );
    result = classify(stream, res.status, res.text);
  } catch (err) {
    result = { outcome: 'other', detail: (err as Error).message };
  }
  return { key, stream, sentAt, doneAt: performance.now(), ...result };
}

async function visitor(i: number): Promise<void> {
  const stream = i % 2 === 1;
  const ip = `10.44.${Math.floor(i / 200)}.${(i % 200) + 1}`;
  let sessionId: string | undefined;
  await sleep(rand() * THINK_MAX_MS);
  for (let m = 0; running; m++) {
    const s = await message(`v${i}.${m}`, stream, ip, sessionId);
    sent.push(s);
    if (s.sessionId) sessionId = s.sessionId;
    await sleep(THINK_MIN_MS + rand() * (THINK_MAX_MS - THINK_MIN_MS));
  }
}

// --- Chat replicas of this script's own ------------------------------------------------------------

interface Replica {
  name: string;
  port: number;
  modelUrl: string;
  child?: ChildProcess;
}

function chatEnv(databaseUrl: string, queuePrefix: string): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX: queuePrefix,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    OPENAI_API_KEY: 'bench-key',
    CHAT_RATE_PER_VISITOR: '1000000',
    CHAT_RATE_PER_BOT: '10000000',
    TRUST_PROXY: '1',
    SERVICE_SECRET,
    // As the manifests do (a few seconds there): on SIGTERM a replica keeps serving, each answer
    // closing its connection, so its callers hold no kept-alive connection to it when it stops listening.
    SHUTDOWN_DRAIN_MS: '3000',
  };
}

async function startReplica(replica: Replica, env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, [...PROCESS_MEMORY.nodeFlags, 'services/chat/src/main.ts'], {
    cwd: root,
    stdio: ['ignore', process.env.BENCH_LOGS ? 'inherit' : 'ignore', 'inherit'],
    env: {
      ...process.env,
      ...PROCESS_MEMORY.env,
      ...env,
      PORT: String(replica.port),
      OPENAI_BASE_URL: replica.modelUrl,
      CHATBOT_URL: `http://127.0.0.1:${4002 + PORT_OFFSET}`,
      BILLING_URL: `http://127.0.0.1:${4004 + PORT_OFFSET}`,
      // The stack's own chat process runs the queue workers; these answer visitors.
      WORKERS: 'off',
    },
  });
  replica.child = child;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`chat replica ${replica.name} exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${replica.port}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return performance.now();
    if (Date.now() > deadline) throw new Error(`chat replica ${replica.name} did not become ready`);
    await sleep(100);
  }
}

async function stopReplica(replica: Replica, signal: NodeJS.Signals): Promise<number> {
  const child = replica.child!;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const at = performance.now();
  child.kill(signal);
  await Promise.race([exited, sleep(60_000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  return at;
}

// --- The run ---------------------------------------------------------------------------------------

const { url: databaseUrl, admin } = await freshDatabase(BASE_DATABASE_URL, DATABASE);
const db = new pg.Client({ connectionString: databaseUrl });
const model = await startFakeOpenAI({
  delayMs: MODEL_DELAY_MS,
  chunkDelayMs: MODEL_CHUNK_MS,
  reply: 'We are open from nine to six on weekdays and from ten to four on Saturdays.',
});
const replicas: Replica[] = [];
const proxies: { close(): Promise<void> }[] = [];
for (const [i, name] of ['A', 'B', 'C', 'D'].entries()) {
  const proxy = await startCountingProxy(name, new URL(model.url));
  proxies.push(proxy);
  replicas.push({ name, port: i === 0 ? CHAT_PORT : CHAT_PORT + 10 + i, modelUrl: proxy.url });
}
const [A, B, C, D] = replicas;
const queuePrefix = `benchscale${randomBytes(4).toString('hex')}`;
const usageQueue = new Queue(QUEUES.usageRecorded, { connection: { url: REDIS_URL }, prefix: queuePrefix });
let stack: RunningStack | undefined;
let missed = 0;
const check = (ok: boolean, what: string) => {
  console.log(`  ${ok ? 'ok  ' : 'MISS'} ${what}`);
  if (!ok) missed++;
};
const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)} %` : '–');

try {
  console.log(
    `scale-out benchmark: ${cpus().length} CPUs, Node ${process.version}, load ${loadAvg()}, database ${DATABASE}, ${VISITORS} visitors (half JSON, half streamed)`,
  );
  const env = chatEnv(databaseUrl, queuePrefix);
  stack = await startStack({
    portOffset: PORT_OFFSET,
    output: process.env.BENCH_LOGS ? 'inherit' : 'quiet',
    env: {
      ...env,
      PORT: '',
      // Replica A is the stack's own chat process; B, C and D are this script's, D started mid-load.
      OPENAI_BASE_URL: A.modelUrl,
      CHAT_URL: replicas.map((r) => `http://127.0.0.1:${r.port}`).join(','),
    },
  });
  gateway = stack.url.replace('localhost', '127.0.0.1');
  await Promise.all([startReplica(B, env), startReplica(C, env)]);
  console.log(`stack and replicas A, B, C ready; CHAT_URL lists A, B, C and D (D not started)`);

  const { token, user } = await postJson<{ token: string; user: { id: string } }>(gateway, '/api/auth/register', {
    email: `bench-scale-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench-password-2026',
    password2: 'bench-password-2026',
  });
  const bot = await postJson<{ _id: string; uniqueId: string }>(gateway, '/api/chatbot', { name: 'Bench scale-out assistant' }, token);
  const unlimited = await fetch(`${gateway}/api/chatbot/${bot._id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ limits: { visitorMessagesPerDay: null, dailySpendLimit: null } }),
  });
  if (!unlimited.ok) throw new Error(`could not lift the bench chatbot's limits: ${unlimited.status}`);
  uniqueId = bot.uniqueId;
  await db.connect();
  await db.query('BEGIN');
  await db.query(`UPDATE billing."Account" SET "creditBalance" = "creditBalance" + $2::numeric WHERE "userId" = $1`, [
    user.id,
    BENCH_CREDIT,
  ]);
  await db.query(
    `INSERT INTO billing."CreditLedgerEntry" (id, "userId", amount, reason, reference) VALUES ($1, $2, $3::numeric, 'bench_credit', $4)`,
    [randomUUID(), user.id, BENCH_CREDIT, `bench:${randomUUID()}`],
  );
  await db.query('COMMIT');
  const warm = await message('warm.0', false, '10.45.0.1');
  if (warm.outcome !== 'answered') throw new Error(`the warm-up message was not answered: ${warm.detail}`);

  const runStart = performance.now();
  const crowd = Promise.all(Array.from({ length: VISITORS }, (_, i) => visitor(i)));
  const callsBetween = (from: number, to: number) =>
    modelCalls.filter((c) => c.startedAt >= from && c.startedAt < to && c.key.startsWith('v'));
  const shares = (calls: ModelCall[], names: string[]) => names.map((n) => calls.filter((c) => c.replica === n).length);
  const outcomesBetween = (from: number, to: number) => sent.filter((s) => s.sentAt >= from && s.sentAt < to);
  const describe = (list: Sent[]) => {
    const n = (o: Outcome) => list.filter((s) => s.outcome === o).length;
    return {
      text: `${list.length} messages: ${n('answered')} answered, ${n('refused-503')} clear 503, ${n('stream-error')} stream error events, ${n('other')} other`,
      n,
      total: list.length,
    };
  };

  // 1. Even spread over A, B and C.
  await sleep(5_000);
  const shareFrom = performance.now();
  await sleep(SHARE_WINDOW_MS);
  const evenCalls = callsBetween(shareFrom, performance.now());
  const even = shares(evenCalls, ['A', 'B', 'C']);
  console.log(
    `1. spread over ${SHARE_WINDOW_MS / 1000} s: ${evenCalls.length} answers; A ${pct(even[0], evenCalls.length)}, B ${pct(even[1], evenCalls.length)}, C ${pct(even[2], evenCalls.length)}; D ${shares(evenCalls, ['D'])[0]}`,
  );
  check(
    even.every((n) => Math.abs(n / evenCalls.length - 1 / 3) <= 0.15 / 3),
    'each replica within ±15 % of an even share',
  );

  // 2. SIGTERM to B mid-load; B started again afterwards.
  const termAt = await stopReplica(B, 'SIGTERM');
  const termExited = performance.now();
  await sleep(2_000);
  const term = describe(outcomesBetween(termAt - 10_000, termExited + 2_000).filter((s) => s.doneAt >= termAt));
  console.log(`2. SIGTERM to B: exited ${((termExited - termAt) / 1000).toFixed(1)} s later; messages ending after it: ${term.text}`);
  check(term.n('refused-503') + term.n('stream-error') + term.n('other') === 0, 'SIGTERM: no failed answer (needs the drain on SIGTERM)');
  await startReplica(B, env);

  // 3. SIGKILL to C mid-load.
  await sleep(5_000);
  const finished = new Set(sent.map((s) => s.key));
  const openOnC = modelCalls.filter((c) => c.replica === 'C' && !finished.has(c.key)).length;
  const beforeKill = callsBetween(performance.now() - 5_000, performance.now());
  const lastShares = shares(beforeKill, ['A', 'B', 'C']);
  console.log(
    `   the 5 s before the kill: ${beforeKill.length} answers started; A ${pct(lastShares[0], beforeKill.length)}, B ${pct(lastShares[1], beforeKill.length)}, C ${pct(lastShares[2], beforeKill.length)}`,
  );
  const killAt = await stopReplica(C, 'SIGKILL');
  await sleep(3_000);
  const killed = describe(sent.filter((s) => s.doneAt >= killAt && s.doneAt < killAt + 3_000));
  console.log(`3. SIGKILL to C with ${openOnC} answers in flight on it at the model: messages ending in the next 3 s: ${killed.text}`);
  await startReplica(C, env);

  // 4. D started mid-load.
  await sleep(3_000);
  const dReady = await startReplica(D, env);
  await sleep(JOIN_WINDOW_MS);
  const joinCalls = callsBetween(dReady, dReady + JOIN_WINDOW_MS);
  const joined = shares(joinCalls, ['A', 'B', 'C', 'D']);
  console.log(
    `4. D ready: in the next ${JOIN_WINDOW_MS / 1000} s, ${joinCalls.length} answers; A ${pct(joined[0], joinCalls.length)}, B ${pct(joined[1], joinCalls.length)}, C ${pct(joined[2], joinCalls.length)}, D ${pct(joined[3], joinCalls.length)}`,
  );
  check(joined[3] / joinCalls.length >= 0.15, 'the new replica takes at least 15 % of the answers within 10 s');

  running = false;
  await crowd;
  const runSeconds = (performance.now() - runStart) / 1000;

  // 5. One conversation continued across replicas.
  let sessionId: string | undefined;
  for (let m = 0; m < 8; m++) {
    const s = await message(`talk.${m}`, m % 2 === 1, '10.45.0.2', sessionId);
    if (s.outcome !== 'answered') throw new Error(`the conversation's message ${m} was not answered: ${s.detail}`);
    sessionId = s.sessionId;
  }
  const talk = modelCalls.filter((c) => c.key.startsWith('talk.'));
  const talkReplicas = new Set(talk.map((c) => c.replica));
  const carried = talk.filter((c, i) => i === 0 || c.history.includes(talk[i - 1].key)).length;
  console.log(
    `5. one conversation, 8 messages: answered by ${[...talkReplicas].sort().join(', ')}; ${carried} of 8 prompts carry the previous turn`,
  );
  check(talkReplicas.size >= 2 && carried === 8, 'a conversation continues across replicas');

  // 6. Billing, once the usage queue is drained.
  const drainStart = performance.now();
  for (;;) {
    const c = await usageQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    if (Object.values(c).every((n) => n === 0)) break;
    if (performance.now() - drainStart > 180_000) throw new Error(`the usage queue did not drain: ${JSON.stringify(c)}`);
    await sleep(200);
  }
  // The kill, once every message has its outcome: only messages in flight at the kill may have failed
  // (those on C: some before C asked the model), none that C's model calls show went elsewhere.
  const failedAtKill = sent.filter((s) => s.outcome !== 'answered' && s.doneAt >= killAt && s.doneAt < killAt + 3_000);
  const failedOnC = failedAtKill.filter((s) => modelCalls.some((c) => c.key === s.key && c.replica === 'C')).length;
  const failedElsewhere = failedAtKill.filter((s) => modelCalls.some((c) => c.key === s.key && c.replica !== 'C')).length;
  const afterKill = describe(sent.filter((s) => s.sentAt >= killAt + 100 && s.sentAt < killAt + 3_000));
  console.log(
    `   SIGKILL, all outcomes known: ${failedAtKill.length} failed (${failedOnC} after C had asked the model, ${failedElsewhere} answered by the model elsewhere, ` +
      `${failedAtKill.length - failedOnC - failedElsewhere} before any model call; sent after the kill: ` +
      `${
        failedAtKill
          .filter((s) => s.sentAt >= killAt)
          .map((s) => `${(s.sentAt - killAt).toFixed(0)} ms after`)
          .join(', ') || 'none'
      }); ` +
      `sent in the 3 s after the kill: ${afterKill.text}`,
  );
  check(killed.n('other') === 0, 'SIGKILL: every failure is a clear 503 or a stream error event');
  check(
    failedAtKill.every((s) => s.sentAt < killAt),
    'SIGKILL: only messages in flight at the kill failed',
  );
  check(afterKill.n('answered') === afterKill.total, 'SIGKILL: every message sent after the kill is answered');

  const all = describe(sent);
  const refusals = new Map<string, number>();
  for (const x of sent)
    if (x.outcome !== 'answered') refusals.set(`${x.outcome}: ${x.detail}`, (refusals.get(`${x.outcome}: ${x.detail}`) ?? 0) + 1);
  for (const [what, n] of refusals) console.log(`   ${n} × ${what}`);
  const q = async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows;
  const [records] = await q<{ n: string; requests: string }>(
    `SELECT count(*) AS n, count(DISTINCT "requestId") AS requests FROM billing."UsageRecord" WHERE "userId" = $1`,
    [user.id],
  );
  const [debits] = await q<{ n: string }>(
    `SELECT count(*) AS n FROM billing."CreditLedgerEntry" WHERE "userId" = $1 AND reason = 'usage'`,
    [user.id],
  );
  const askedTwice = [...modelCalls.reduce((m, c) => m.set(c.key, (m.get(c.key) ?? 0) + 1), new Map<string, number>())].filter(
    ([, n]) => n > 1,
  ).length;
  const answered = all.n('answered') + 1 + 8;
  const billed = Number(records.n);
  console.log(
    `6. run: ${runSeconds.toFixed(0)} s, ${all.text}; model asked ${modelCalls.length} times, ${askedTwice} messages asked twice; ` +
      `billing: ${billed} usage records (${billed - Number(records.requests)} doubled), ${debits.n} debits, for ${answered} answered messages`,
  );
  check(askedTwice === 0 && billed === Number(records.requests) && Number(debits.n) === billed, 'nothing answered or billed twice');
  check(billed >= answered, `every answered message billed (${answered} answered, ${billed} billed)`);
  check(billed <= modelCalls.length, `nothing billed that the model did not answer (${billed} billed, ${modelCalls.length} model calls)`);
} finally {
  running = false;
  for (const r of replicas) if (r.child && r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  await stack?.stop();
  clientAgent.destroy();
  await usageQueue.close();
  for (const p of proxies) await p.close();
  await model.close();
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
if (missed > 0) process.exitCode = 1;
