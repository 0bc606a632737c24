// Chat service killed mid-run (a failure-mode check; prints figures, not a test): 200
// visitors × 5 messages through the gateway's public chat, SIGKILL to the chat service once a third are
// answered, then the database says what was billed. Every message must end as an answer or a clear
// refusal, usage is billed once, and paid-not-billed answers stay within those in flight at the kill.
// Method, environment variables (BENCH_KEEP, BENCH_LOGS, BENCH_KEEPALIVE) and results: docs/benchmarks.md.
//
//   node bench/chat-kill.ts            (or: npm run bench chat-kill)
// Exits with code 1 when a target is missed.
import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import { cpus } from 'node:os';
import { Queue } from 'bullmq';
import pg from 'pg';
import { QUEUES } from '../services/common/src/queues.ts';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { startFakeOpenAI, type FakeOpenAIRequest } from '../services/common/src/testing/fake-openai.ts';
import { startStack, type RunningStack } from '../scripts/stack.ts';
import {
  classifyChat as classify,
  cpuTicks,
  freshDatabase,
  postJson,
  postText,
  stackChildren,
  type ChatOutcome as Outcome,
} from './bench-stack.ts';
import { mulberry32, percentile } from './stats.ts';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE = 'parley_bench_kill';
const PORT_OFFSET = 300;
const CHAT_PORT = 4003 + PORT_OFFSET;
const VISITORS = 200;
const MESSAGES_PER_VISITOR = 5;
const TOTAL = VISITORS * MESSAGES_PER_VISITOR;
/** The kill comes once this many messages have their outcome. */
const KILL_AFTER = Math.round(TOTAL / 3);
/** The model: headers after MODEL_DELAY_MS, then 20 streamed chunks MODEL_CHUNK_MS apart (3 words each). */
const MODEL_DELAY_MS = 100;
/** How long a credit hold lasts in this run (CREDIT_HOLD_TTL_MS): longer than any answer takes, far shorter than the default 10 minutes. */
const HOLD_TTL_MS = 20_000;
const MODEL_CHUNK_MS = 20;
const ANSWER_WORDS = 60;
const THINK_MIN_MS = 300;
const THINK_MAX_MS = 1_000;
/** After a refusal a visitor reads "please try again" and waits longer before the next message. */
const RETRY_MIN_MS = 2_000;
const RETRY_MAX_MS = 4_000;
/** One message's deadline on the visitor's side (the gateway's own is 60 s). */
const CLIENT_TIMEOUT_MS = 90_000;
/** Enough for well over 1,000 answers (each holds about $0.002 at gpt-4o-mini's price, and costs less). */
const BENCH_CREDIT = '10';
const DRAIN_DEADLINE_MS = 3 * 60_000;

const sleep = (n: number) => new Promise<void>((r) => setTimeout(r, n));
const rand = mulberry32(20261124);

// --- The provider, counted: a proxy in front of the fake that sees each completion through --------

type ModelCall = { key: string; startedAt: number; endedAt?: number; outcome: 'open' | 'served' | 'cut' };
const modelCalls: ModelCall[] = [];
/** The visitor's message a prompt answers, from its `[v12.3]` tag. */
const keyOf = (body: FakeOpenAIRequest): string => {
  const last = [...body.messages].reverse().find((m) => m.role === 'user');
  return /\[((?:v\d+|warm)\.\d+)\]/.exec(last?.content ?? '')?.[1] ?? '?';
};

function startCountingProxy(target: URL): Promise<{ url: string; close(): Promise<void> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let call: ModelCall | undefined;
      if (req.url?.endsWith('/chat/completions')) {
        try {
          call = { key: keyOf(JSON.parse(raw.toString('utf8')) as FakeOpenAIRequest), startedAt: performance.now(), outcome: 'open' };
          modelCalls.push(call);
        } catch {
          // not JSON: the fake answers 400, nothing is paid
        }
      }
      const upstream = httpRequest(
        { agent, host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      // A completion is paid once the provider has sent all of it; one whose caller went away
      // half-way (the chat service killed) is cut, and paid for the tokens already generated.
      res.on('finish', () => {
        if (call && call.outcome === 'open') Object.assign(call, { outcome: 'served', endedAt: performance.now() });
      });
      res.on('close', () => {
        if (!res.writableFinished) {
          if (call && call.outcome === 'open') Object.assign(call, { outcome: 'cut', endedAt: performance.now() });
          upstream.destroy();
        }
      });
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
  visitor: number;
  stream: boolean;
  sentAt: number;
  doneAt: number;
  outcome: Outcome;
  detail: string;
}
const sent: Sent[] = [];
let settledCount = 0;
let onSettled: (() => void) | undefined;

const QUESTIONS = [
  'What are your opening hours?',
  'Do you deliver on Sundays?',
  'How much does the large plan cost?',
  'Can I return an item after thirty days?',
  'Do you offer gift cards?',
];
const KNOWLEDGE = [
  'Opening hours: Monday to Friday 9:00 to 18:00, Saturday 10:00 to 16:00. We are closed on Sundays and public holidays.',
  'Delivery: orders placed before 14:00 ship the same day. Delivery takes one to three working days; there is no delivery on Sundays.',
  'Plans: the small plan costs 9 euros a month, the large plan 29 euros a month. Returns are accepted within thirty days; gift cards are sold in every shop.',
];
const ANSWER =
  Array.from({ length: ANSWER_WORDS }, (_, i) => ['We', 'are', 'open', 'from', 'nine', 'to', 'six', 'on', 'weekdays', 'and'][i % 10]).join(
    ' ',
  ) + '.';

// A connection per message: on a kept-alive one, a message sent just as the gateway closes the idle
// connection fails with "socket hang up" before it reaches the gateway (a browser would resend it),
// which would be counted here as the product's failure. BENCH_KEEPALIVE=1 keeps them alive (a
// failure then says whether its connection was a reused one).
const clientAgent = new Agent({ keepAlive: process.env.BENCH_KEEPALIVE === '1', maxSockets: Infinity });
const post = (url: string, headers: Record<string, string>, body: string) => postText(clientAgent, url, headers, body, CLIENT_TIMEOUT_MS);

let gateway = '';
let uniqueId = '';

async function visitor(i: number): Promise<void> {
  const stream = i % 2 === 1;
  const ip = `10.43.${Math.floor(i / 200)}.${(i % 200) + 1}`;
  // The first message's id is only a hint: the answer carries the id the service issued.
  let sessionId = `bench-kill-visitor-${i}`;
  await sleep(rand() * THINK_MAX_MS);
  for (let m = 0; m < MESSAGES_PER_VISITOR; m++) {
    const key = `v${i}.${m}`;
    const sentAt = performance.now();
    let result: ReturnType<typeof classify>;
    try {
      const res = await post(
        `${gateway}/api/chatbot/public/${uniqueId}/chat`,
        { 'content-type': 'application/json', 'x-forwarded-for': ip, ...(stream ? { accept: 'text/event-stream' } : {}) },
        JSON.stringify({ sessionId, message: `${QUESTIONS[(i + m) % QUESTIONS.length]} [${key}]` }),
      );
      result = classify(stream, res.status, res.text);
    } catch (err) {
      result = { outcome: 'other', detail: (err as Error).message };
    }
    if (result.sessionId) sessionId = result.sessionId;
    sent.push({ key, visitor: i, stream, sentAt, doneAt: performance.now(), outcome: result.outcome, detail: result.detail });
    settledCount++;
    onSettled?.();
    const [min, max] = result.outcome === 'answered' ? [THINK_MIN_MS, THINK_MAX_MS] : [RETRY_MIN_MS, RETRY_MAX_MS];
    await sleep(min + rand() * (max - min));
  }
}

// --- The stack's chat process ----------------------------------------------------------------------

/** The chat service's pid: this process's child running its entry file (startStack spawns them directly). */
const chatPid = (): number | undefined => stackChildren().chat;

/** CPU time (clock ticks of 10 ms) of each of the stack's processes, by name. */
const stackTicks = (): Record<string, number> =>
  Object.fromEntries(Object.entries(stackChildren()).map(([name, pid]) => [name, cpuTicks(pid)]));

const api = <T>(path: string, body: unknown, token?: string) => postJson<T>(gateway, path, body, token);

// --- The run ---------------------------------------------------------------------------------------

const { url: databaseUrl, admin } = await freshDatabase(BASE_DATABASE_URL, DATABASE);
const db = new pg.Client({ connectionString: databaseUrl });

const model = await startFakeOpenAI({ delayMs: MODEL_DELAY_MS, chunkDelayMs: MODEL_CHUNK_MS, reply: ANSWER });
const provider = await startCountingProxy(new URL(model.url));
const queuePrefix = `benchkill${randomBytes(4).toString('hex')}`;
const usageQueue = new Queue(QUEUES.usageRecorded, { connection: { url: REDIS_URL }, prefix: queuePrefix });
let stack: RunningStack | undefined;
let failedTargets = 0;
try {
  console.log(
    `chat-kill benchmark: ${cpus().length} CPUs, Node ${process.version}, database ${DATABASE}, ${VISITORS} visitors × ${MESSAGES_PER_VISITOR} messages (half JSON, half streamed)`,
  );
  const startedAt = performance.now();
  stack = await startStack({
    portOffset: PORT_OFFSET,
    output: process.env.BENCH_LOGS ? 'inherit' : 'quiet',
    env: {
      DATABASE_URL: databaseUrl,
      QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      PORT: '',
      OPENAI_API_KEY: 'bench-key',
      OPENAI_BASE_URL: provider.url,
      // 200 visitors from 200 addresses (X-Forwarded-For, trusted one hop) at 5 messages each: the
      // default limits (20 a minute per visitor, 300 per chatbot) would refuse most of them.
      CHAT_RATE_PER_VISITOR: '1000000',
      CHAT_RATE_PER_BOT: '10000000',
      TRUST_PROXY: '1',
      // Holds of answers whose usage died with the process expire in seconds here, not 10 minutes, and
      // the chat workers reconcile them every 2 s (ADR 37), so the run sees them billed.
      CREDIT_HOLD_TTL_MS: String(HOLD_TTL_MS),
      RECONCILE_HOLDS_MS: '2000',
    },
  });
  gateway = stack.url.replace('localhost', '127.0.0.1');
  void stack.exited.then(({ name, code }) => console.log(`the stack gave up: ${name} exited with code ${code}`));
  console.log(`stack ready in ${((performance.now() - startedAt) / 1000).toFixed(1)} s (gateway ${gateway})`);

  // An owner, a chatbot with some knowledge, and credit for far more than the run's answers, added
  // with its ledger entry so that balance = ledger holds from the start.
  const { token, user } = await api<{ token: string; user: { id: string } }>('/api/auth/register', {
    email: `bench-kill-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench-password-2026',
    password2: 'bench-password-2026',
  });
  const bot = await api<{ _id: string; uniqueId: string }>('/api/chatbot', { name: 'Bench shop assistant' }, token);
  for (const text of KNOWLEDGE) await api(`/api/chatbot/${bot._id}/knowledge-base/text`, { text, append: true }, token);
  // Thousands of messages from one address: without the daily visitor and spend limits (docs/product.md, Visitor limits).
  const unlimited = await fetch(`${gateway}/api/chatbot/${bot._id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ limits: { visitorMessagesPerDay: null, dailySpendLimit: null } }),
  });
  if (!unlimited.ok) throw new Error(`could not lift the bench chatbot's limits: ${unlimited.status}`);
  uniqueId = bot.uniqueId;
  await db.connect();
  await db.query('BEGIN');
  const { rowCount } = await db.query(`UPDATE billing."Account" SET "creditBalance" = "creditBalance" + $2::numeric WHERE "userId" = $1`, [
    user.id,
    BENCH_CREDIT,
  ]);
  if (rowCount !== 1) throw new Error('no billing account for the bench owner');
  await db.query(
    `INSERT INTO billing."CreditLedgerEntry" (id, "userId", amount, reason, reference) VALUES ($1, $2, $3::numeric, 'bench_credit', $4)`,
    [randomUUID(), user.id, BENCH_CREDIT, `bench:${randomUUID()}`],
  );
  await db.query('COMMIT');

  // One answer first, so that the run starts with everything connected and warm.
  const warmed = await post(
    `${gateway}/api/chatbot/public/${uniqueId}/chat`,
    { 'content-type': 'application/json' },
    JSON.stringify({ message: 'Hello [warm.0]' }),
  );
  const warm = classify(false, warmed.status, warmed.text);
  if (warm.outcome !== 'answered') throw new Error(`the warm-up message was not answered: ${warm.detail}`);

  // The run, with the kill once a third of the messages have their outcome.
  const pidBefore = chatPid();
  if (!pidBefore) throw new Error('the chat service process was not found');
  let kill: { at: number; pid: number; modelCallsOpen: number } | undefined;
  let restartedAt: number | undefined;
  let pidAfter: number | undefined;
  const killed = new Promise<void>((resolve) => {
    onSettled = () => {
      if (kill || settledCount < KILL_AFTER) return;
      kill = { at: performance.now(), pid: pidBefore, modelCallsOpen: modelCalls.filter((c) => c.outcome === 'open').length };
      const ticks = stackTicks();
      const seconds = (kill.at - runStart) / 1000;
      cpuBeforeKill = Object.keys(ticks)
        .map((n) => `${n} ${(((ticks[n] - (ticksStart[n] ?? 0)) * 10) / 1000 / seconds).toFixed(2)}`)
        .join(', ');
      process.kill(pidBefore, 'SIGKILL');
      resolve();
    };
  });
  const runStart = performance.now();
  const cpuStart = process.cpuUsage();
  const ticksStart = stackTicks();
  let cpuBeforeKill = '';
  const run = Promise.all(Array.from({ length: VISITORS }, (_, i) => visitor(i)));
  await Promise.race([killed, run]);
  if (kill) {
    // Back when the supervisor's new process answers /readyz.
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${CHAT_PORT}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
        (r) => r.ok,
        () => false,
      );
      pidAfter = chatPid();
      if (ok && pidAfter && pidAfter !== kill.pid) {
        restartedAt = performance.now();
        break;
      }
      if (performance.now() - kill.at > 120_000) throw new Error('the chat service did not come back within 2 minutes');
      await sleep(50);
    }
  }
  await run;
  const runSeconds = (performance.now() - runStart) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const benchCores = (cpu.user + cpu.system) / 1e6 / runSeconds;

  // Let billing catch up: the usage queue empty (jobs failed for good are counted, not waited for).
  const drainStart = performance.now();
  let counts: Record<string, number> = {};
  for (;;) {
    counts = await usageQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed');
    if ((counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0) === 0) break;
    if (performance.now() - drainStart > DRAIN_DEADLINE_MS) throw new Error(`the usage queue did not drain: ${JSON.stringify(counts)}`);
    await sleep(200);
  }
  // No open model call may remain (a killed call is cut when its socket closes).
  for (let i = 0; i < 50 && modelCalls.some((c) => c.outcome === 'open'); i++) await sleep(100);
  // The holds of the answers whose usage died with the killed process: expired after HOLD_TTL_MS, then
  // settled from the stored exchanges (or released) by the restarted chat service's reconciliation.
  const reconcileStart = performance.now();
  let holdsLeft = -1;
  for (;;) {
    holdsLeft = Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM billing."CreditReservation"`)).rows[0].n);
    const queued = await usageQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    if (holdsLeft === 0 && Object.values(queued).every((n) => n === 0)) break;
    if (performance.now() - reconcileStart > HOLD_TTL_MS + 60_000) break;
    await sleep(250);
  }
  const reconcileSeconds = (performance.now() - reconcileStart) / 1000;
  counts = await usageQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed');

  // --- The figures --------------------------------------------------------------------------------
  const runMessages = sent;
  const by = (o: Outcome, stream?: boolean) =>
    runMessages.filter((s) => s.outcome === o && (stream === undefined || s.stream === stream)).length;
  const others = runMessages.filter((s) => s.outcome === 'other');
  const runCalls = modelCalls.filter((c) => c.key !== 'warm.0');
  const served = runCalls.filter((c) => c.outcome === 'served').length;
  const cut = runCalls.filter((c) => c.outcome === 'cut').length;
  const stillOpen = runCalls.filter((c) => c.outcome === 'open').length;
  const outcomeAt = new Map(runMessages.map((s) => [s.key, s.doneAt]));
  // In flight at the kill: the model was called for it, and its visitor had no outcome yet.
  const inFlight = kill ? runCalls.filter((c) => c.startedAt <= kill!.at && (outcomeAt.get(c.key) ?? Infinity) > kill!.at).length : 0;

  const q = async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows;
  const [records] = await q<{ n: string; requests: string; cost: string }>(
    `SELECT count(*) AS n, count(DISTINCT "requestId") AS requests, coalesce(sum("totalCost"), 0)::text AS cost FROM billing."UsageRecord" WHERE "userId" = $1 AND "chatbotId" = $2`,
    [user.id, bot._id],
  );
  const [dupRows] = await q<{ n: string }>(
    `SELECT count(*) AS n FROM (SELECT "requestId" FROM billing."UsageRecord" GROUP BY 1 HAVING count(*) > 1) d`,
  );
  const [debits] = await q<{ n: string; sum: string }>(
    `SELECT count(*) AS n, coalesce(-sum(amount), 0)::text AS sum FROM billing."CreditLedgerEntry" WHERE "userId" = $1 AND reason = 'usage'`,
    [user.id],
  );
  const [holds] = await q<{ n: string; sum: string; reserved: string; balance: string; ledger: string }>(
    `SELECT (SELECT count(*) FROM billing."CreditReservation" WHERE "userId" = $1) AS n,
            (SELECT coalesce(sum(amount), 0)::numeric(20, 10)::text FROM billing."CreditReservation" WHERE "userId" = $1) AS sum,
            a."reservedCredit"::text AS reserved, a."creditBalance"::text AS balance,
            (SELECT coalesce(sum(amount), 0)::text FROM billing."CreditLedgerEntry" WHERE "userId" = $1) AS ledger
       FROM billing."Account" a WHERE a."userId" = $1`,
    [user.id],
  );
  const [stored] = await q<{ n: string }>(
    `SELECT count(*) AS n FROM chat."Message" m JOIN chat."Conversation" c ON c.id = m."conversationId" WHERE c."chatbotId" = $1 AND m.role = 'assistant'`,
    [bot._id],
  );
  // A model's answer keeps its request id (ADR 37): one stored without a usage record was not billed.
  const [unbilled] = await q<{ n: string }>(
    `SELECT count(*) AS n FROM chat."Message" m WHERE m."requestId" IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM billing."UsageRecord" u WHERE u."requestId" = m."requestId")`,
  );
  // Settled by the reconciliation: recorded a hold's lifetime after the answer (its usage died with the process).
  const [reconciled] = await q<{ n: string }>(
    `SELECT count(*) AS n FROM billing."UsageRecord" WHERE "userId" = $1 AND "createdAt" >= "occurredAt" + make_interval(secs => $2)`,
    [user.id, HOLD_TTL_MS / 1000 / 2],
  );
  const billed = Number(records.n) - 1; // less the warm-up answer
  const answered = by('answered');
  const paid = served + cut;
  const paidNotBilled = paid - billed;

  console.log(
    `run: ${runMessages.length} messages in ${runSeconds.toFixed(1)} s; the model: headers after ${MODEL_DELAY_MS} ms, then 20 chunks ${MODEL_CHUNK_MS} ms apart; ` +
      `this process (visitors, the provider and its proxy) used ${benchCores.toFixed(2)} cores`,
  );
  if (kill) {
    console.log(
      `kill: SIGKILL to the chat service (pid ${kill.pid}) after ${KILL_AFTER} outcomes, ${((kill.at - runStart) / 1000).toFixed(1)} s into the run; ` +
        `${kill.modelCallsOpen} model calls open, ${inFlight} answers in flight (model called, visitor not yet answered); ` +
        `back (new pid ${pidAfter}, /readyz) ${restartedAt ? ((restartedAt - kill.at) / 1000).toFixed(1) : '?'} s later`,
    );
  } else console.log('kill: the run ended before the kill point (no kill)');
  console.log(
    `visitors' outcomes: ${answered} answered (JSON ${by('answered', false)}, streamed ${by('answered', true)}); ` +
      `${by('refused-503')} clear 503 (JSON ${by('refused-503', false)}, streamed before the first event ${by('refused-503', true)}); ` +
      `${by('stream-error')} streams ended by a clear error event; ${others.length} other`,
  );
  const messages = new Map<string, number>();
  for (const s of runMessages)
    if (s.outcome !== 'answered' && s.outcome !== 'other') messages.set(s.detail, (messages.get(s.detail) ?? 0) + 1);
  for (const [text, n] of messages) console.log(`  ${n} × "${text}"`);
  for (const s of others.slice(0, 5)) {
    const when = kill
      ? `, sent ${((s.sentAt - kill.at) / 1000).toFixed(2)} s after the kill, ended after ${((s.doneAt - s.sentAt) / 1000).toFixed(2)} s`
      : '';
    console.log(`  other: ${s.key}${s.stream ? ' (stream)' : ''}${when}: ${s.detail}`);
  }
  const latency = (list: Sent[]) => {
    const t = list.map((s) => s.doneAt - s.sentAt).sort((a, b) => a - b);
    return t.length ? `p50 ${percentile(t, 50).toFixed(0)} ms, p95 ${percentile(t, 95).toFixed(0)} ms` : 'none';
  };
  if (kill && restartedAt) {
    const before = runMessages.filter((s) => s.doneAt <= kill!.at);
    const after = runMessages.filter((s) => s.sentAt >= restartedAt!);
    console.log(
      `before the kill: ${before.length} outcomes in ${((kill.at - runStart) / 1000).toFixed(1)} s, answered ${latency(before.filter((s) => s.outcome === 'answered'))}; ` +
        `stack CPU until the kill (cores): ${cpuBeforeKill}; sent after the chat service was back: ${after.length}, ${after.filter((s) => s.outcome === 'answered').length} answered (${latency(after.filter((s) => s.outcome === 'answered'))})`,
    );
  }
  const perVisitor = Array.from({ length: VISITORS }, (_, i) => runMessages.filter((s) => s.visitor === i));
  const visitorsAllClear = perVisitor.filter((ms) => ms.length === MESSAGES_PER_VISITOR && ms.every((s) => s.outcome !== 'other')).length;
  const visitorsHit = perVisitor.filter((ms) => ms.some((s) => s.outcome !== 'answered')).length;
  console.log(
    `visitors: ${visitorsAllClear} of ${VISITORS} got an answer or a clear refusal for every message; ${visitorsHit} had at least one refused`,
  );
  console.log(
    `provider: ${runCalls.length} completions requested, ${served} served whole, ${cut} cut off by the kill (paid for the tokens sent), ${stillOpen} still open`,
  );
  console.log(
    `billing: ${billed} usage records for the run (+1 warm-up), ${Number(records.n) - Number(records.requests)} doubled in this chatbot, ${dupRows.n} request ids with more than one record; ` +
      `${debits.n} usage debits in the ledger ($${Number(debits.sum).toFixed(6)} against records' $${Number(records.cost).toFixed(6)}); ` +
      `${Number(stored.n) - 1} answers stored in conversations; usage queue ${JSON.stringify(counts)}`,
  );
  console.log(
    `paid and not billed: ${paidNotBilled} (${paid} paid − ${billed} billed; ${served - billed} served whole but not billed, ${cut} cut); ` +
      `answered but not billed: ${Math.max(0, answered - billed)}; billed but not paid: ${Math.max(0, billed - served)}`,
  );
  console.log(
    `credit holds left: ${holds.n} ($${Number(holds.sum).toFixed(6)}; account's reservedCredit $${Number(holds.reserved).toFixed(6)}) ` +
      `${reconcileSeconds.toFixed(1)} s after the run (holds expire after ${HOLD_TTL_MS / 1000} s and are reconciled from the stored exchanges every 2 s; ` +
      `${reconciled.n} answers billed by the reconciliation, their usage lost with the killed process); ` +
      `balance $${holds.balance} vs ledger $${holds.ledger}`,
  );

  const check = (ok: boolean, what: string) => {
    console.log(`  ${ok ? 'ok  ' : 'MISS'} ${what}`);
    if (!ok) failedTargets++;
  };
  console.log('targets:');
  check(Boolean(kill) && Boolean(restartedAt), 'the chat service was killed mid-run and came back');
  check(
    runMessages.length === TOTAL && others.length === 0,
    `every message answered or clearly refused (${others.length} other of ${runMessages.length})`,
  );
  check(Number(dupRows.n) === 0 && Number(debits.n) === Number(records.n), 'no usage record doubled (one per request id, one debit each)');
  check(billed >= answered, `no answered message unbilled (${answered} answered, ${billed} billed)`);
  check(
    Number(unbilled.n) === 0,
    `every stored answer billed (${unbilled.n} of ${Number(stored.n) - 1} stored answers without a usage record)`,
  );
  check(Number(holds.n) === 0, 'no credit hold left once reconciled');
  check(billed <= served, `nothing billed that the provider did not serve (${billed} billed, ${served} served whole)`);
  check(paidNotBilled <= inFlight, `paid and not billed ${paidNotBilled} ≤ in flight at the kill ${inFlight}`);
  // Both NUMERIC with 10 decimals, compared exactly as text.
  check(holds.balance === holds.ledger, 'balance = ledger');
  check(holds.sum === holds.reserved, "the account's reservedCredit = its holds");
} finally {
  await stack?.stop();
  clientAgent.destroy();
  await usageQueue.close();
  await provider.close();
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
  } else console.log(`kept database ${DATABASE} and Redis keys ${queuePrefix}:*`);
  await admin.end();
}
if (failedTargets) process.exitCode = 1;
