// Webhook fan-out benchmark (a script that prints figures, not a test): what delivering every event
// to 10 endpoints costs the public chat. Webhook events are derived from the chat service's
// analytics batches, off the visitor's path, and fanned out and delivered by the chatbot service
// (docs/adr/0032-webhooks.md); this measures whether the visitor feels them. Starts the whole
// product once (startStack, against a zero-latency fake of the OpenAI API in this process, with
// KNOWLEDGE_URL_ALLOW_PRIVATE=1 so that the chatbot service may call a receiver on 127.0.0.1), a
// local receiver answering 200 that counts the deliveries and checks a few signatures with the
// standardwebhooks package, and an owner on the Pro plan with ample credit and one chatbot. Then
// rounds alternate, without endpoints and with 10 endpoints subscribed to every event type (created
// through POST /api/workspace/webhooks at the start of the round, deleted at its end: the same owner,
// chatbot and stack in both kinds). Each round sends, through POST /api/chatbot/public/{uniqueId}/chat:
//   - a warm-up, unmeasured (20 new visitors at once), and its deliveries awaited;
//   - a paced visitor: messages in one conversation, each sent 200 ms after the answer to the one
//     before (p50, p95): the fan-out has time to deliver between messages, so this shows whether
//     it touches the visitor's path at all;
//   - N messages from one visitor, one after another, in one conversation (p50, p95): with
//     endpoints, their deliveries run while the next messages are answered;
//   - M messages from 20 new visitors at once, each in its own conversation (requests/s, p50, p95);
// a round with endpoints waits until the receiver has every delivery its messages call for (on each
// endpoint: message.created for every message, conversation.started for every conversation) after
// the warm-up, after the paced part and at its end, and reports deliveries per message and how long after the last
// answer the last of them arrived. CPU per message is the stack's processes' (from /proc) over the
// two unpaced parts, what they set off after their answers included. Last, the ratios with ÷ without.
//
//   node bench/webhook-fanout.ts            (or: npm run bench webhook-fanout)
//
// Uses its own database (parley_bench_webhooks, or BENCH_DATABASE) and queue prefix, both dropped at
// the end (BENCH_KEEP=1 keeps them), ports 700 above the defaults (or BENCH_PORT_OFFSET).
// BENCH_SCALE=0.2 sends a fifth of the messages; BENCH_PAIRS (default 3) rounds of each kind;
// BENCH_LOGS=1 shows the services' logs.
import { randomBytes } from 'node:crypto';
import { Agent, createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { startFakeOpenAI } from '../services/common/src/testing/fake-openai.ts';
import { WEBHOOK_EVENT_TYPES } from '../services/common/src/webhook-events.ts';
import { startStack, type RunningStack } from '../scripts/stack.ts';
import { cpuTicks, freshDatabase, postJson, postText, stackChildren } from './bench-stack.ts';
import { latencies, load, ms, stopOnSignal } from './stats.ts';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
const DATABASE = process.env.BENCH_DATABASE ?? 'parley_bench_webhooks';
if (!/^[a-z_][a-z0-9_]*$/.test(DATABASE)) throw new Error(`BENCH_DATABASE must be a plain database name, got "${DATABASE}"`);
const PORT_OFFSET = Number(process.env.BENCH_PORT_OFFSET ?? '700');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const scale = Number(process.env.BENCH_SCALE ?? '1');
const PAIRS = Math.max(1, Number(process.env.BENCH_PAIRS ?? '3'));
const ENDPOINTS = 10;
const CONCURRENT = 20;
const WARMUP = Math.max(CONCURRENT, Math.round(100 * scale));
/** Messages of the paced visitor (who waits PACE_MS after each answer), of the one visitor (N) and of the 20 at once (M), each round. */
const PACED = Math.max(20, Math.round(100 * scale));
const PACE_MS = 200;
const SEQUENTIAL = Math.max(30, Math.round(500 * scale));
const PARALLEL = Math.max(100, Math.round(2_000 * scale));
/** How long a round with endpoints waits for its deliveries after its last answer. */
const DELIVERY_DEADLINE_MS = 180_000;
/** Signatures checked: the first few of each endpoint, then one delivery in SIGNATURE_EVERY. */
const SIGNATURES_FIRST = 3;
const SIGNATURE_EVERY = 100;
const TICK_MS = 10;
/** A pause before each round, for the analytics batches of the one before to be written. */
const SETTLE_MS = 2_000;

type Kind = 'without' | 'with';
const order: Kind[] = Array.from({ length: PAIRS }, () => ['without', 'with'] as Kind[]).flat();

interface Delivery {
  round: number;
  webhookId: string;
  type: string;
  conversationId: string;
  at: number;
}
interface Round {
  index: number;
  kind: Kind;
  /** The conversations its messages went to, and how many messages it sent (warm-up included). */
  sessions: Set<string>;
  messages: number;
  deliveries: Delivery[];
}

const signal = stopOnSignal();
const sleep = (n: number) => new Promise<void>((r) => setTimeout(r, n));

// --- The receiver ---------------------------------------------------------------------------------

const rounds: Round[] = [];
/** Each endpoint's signing secret, by its path on the receiver. */
const secrets = new Map<string, string>();
const signatures = { checked: 0, failed: [] as string[] };
let strayDeliveries = 0;
const seenByPath = new Map<string, number>();

function verify(path: string, body: string, headers: IncomingHttpHeaders): void {
  const seen = (seenByPath.get(path) ?? 0) + 1;
  seenByPath.set(path, seen);
  if (seen > SIGNATURES_FIRST && seen % SIGNATURE_EVERY !== 0) return;
  signatures.checked++;
  try {
    new Webhook(secrets.get(path) ?? '').verify(body, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    });
  } catch (err) {
    signatures.failed.push(`${path}: ${(err as Error).message}`);
  }
}

const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = performance.now();
    const path = req.url ?? '';
    const body = Buffer.concat(chunks).toString('utf8');
    const round = rounds[Number(/^\/r(\d+)\/e\d+$/.exec(path)?.[1] ?? -1)];
    if (round) {
      verify(path, body, req.headers);
      const event = JSON.parse(body) as { type: string; data: { conversationId?: string } };
      round.deliveries.push({
        round: round.index,
        webhookId: String(req.headers['webhook-id']),
        type: event.type,
        conversationId: event.data.conversationId ?? '',
        at,
      });
    } else strayDeliveries++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

// --- The stack, the owner and the chatbot ---------------------------------------------------------

const { url: databaseUrl, admin } = await freshDatabase(BASE_DATABASE_URL, DATABASE);
const model = await startFakeOpenAI({ delayMs: 0, chunkDelayMs: 0 });
const queuePrefix = `benchwebhooks${randomBytes(4).toString('hex')}`;
let stack: RunningStack | undefined;

/** The owner's session and the chatbot's public id. */
async function prepareOwner(gateway: string): Promise<{ token: string; uniqueId: string }> {
  const { token, user } = await postJson<{ token: string; user: { id: string } }>(gateway, '/api/auth/register', {
    email: `bench-webhooks-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench-password-2026',
    password2: 'bench-password-2026',
  });
  const bot = await postJson<{ _id: string; uniqueId: string }>(gateway, '/api/chatbot', { name: 'Bench shop' }, token);
  await postJson(
    gateway,
    `/api/chatbot/${bot._id}/knowledge-base/text`,
    { text: 'We open at nine and close at six, Monday to Saturday.' },
    token,
  );
  // Thousands of messages from a few addresses: without the daily visitor and spend limits.
  const lifted = await fetch(`${gateway}/api/chatbot/${bot._id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ limits: { visitorMessagesPerDay: null, dailySpendLimit: null } }),
  });
  if (!lifted.ok) throw new Error(`could not lift the limits: ${lifted.status}`);
  // Billing opens the account when it hears of the new user (a queue): given 10 s to do so. Set in
  // SQL, the plan change publishes no plan.changed, and the credit never runs low (no credit.low).
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (const deadline = Date.now() + 10_000; ; await sleep(200)) {
      const { rowCount } = await db.query(`UPDATE billing."Account" SET plan = 'pro', "creditBalance" = 1000 WHERE "userId" = $1`, [
        user.id,
      ]);
      if (rowCount === 1) break;
      if (Date.now() > deadline) throw new Error('no billing account for the bench owner');
    }
  } finally {
    await db.end();
  }
  return { token, uniqueId: bot.uniqueId };
}

// --- Messages -------------------------------------------------------------------------------------

const agent = new Agent({ keepAlive: true, maxSockets: Infinity, timeout: 5000 });
let visitorCount = 0;
interface Visitor {
  sessionId: string;
  ip: string;
  sent: number;
}
const newVisitor = (): Visitor => {
  const n = visitorCount++;
  return { sessionId: `bench-${randomBytes(6).toString('hex')}`, ip: `10.44.${Math.floor(n / 200)}.${(n % 200) + 1}`, sent: 0 };
};

/** One message of `v` in its conversation; its time in ms. */
async function send(gateway: string, uniqueId: string, round: Round, v: Visitor): Promise<number> {
  const begun = performance.now();
  const res = await postText(
    agent,
    `${gateway}/api/chatbot/public/${uniqueId}/chat`,
    { 'content-type': 'application/json', 'x-forwarded-for': v.ip },
    JSON.stringify({ sessionId: v.sessionId, message: `When do you open on Saturday? (${v.sent})` }),
    30_000,
  );
  const elapsed = performance.now() - begun;
  const body = JSON.parse(res.text) as { message?: string; sessionId?: string };
  if (res.status !== 200 || !body.message || !body.sessionId) throw new Error(`chat answered ${res.status}: ${res.text.slice(0, 300)}`);
  v.sessionId = body.sessionId;
  v.sent++;
  round.sessions.add(body.sessionId);
  round.messages++;
  return elapsed;
}

/** `count` messages shared by `visitors`, each sending one after another; the times and the seconds it took. */
async function sendAll(gateway: string, uniqueId: string, round: Round, visitors: Visitor[], count: number) {
  const times: number[] = [];
  let issued = 0;
  const begun = performance.now();
  await Promise.all(
    visitors.map(async (v) => {
      while (issued < count) {
        issued++;
        signal.check();
        times.push(await send(gateway, uniqueId, round, v));
      }
    }),
  );
  return { times, seconds: (performance.now() - begun) / 1000 };
}

/** `count` messages of one new visitor, each PACE_MS after the answer to the one before. */
async function sendPaced(gateway: string, uniqueId: string, round: Round, count: number): Promise<number[]> {
  const v = newVisitor();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    signal.check();
    times.push(await send(gateway, uniqueId, round, v));
    await sleep(PACE_MS);
  }
  return times;
}

// --- Rounds ---------------------------------------------------------------------------------------

interface Figures {
  paced: number[];
  sequential: number[];
  parallel: number[];
  rps: number[];
  /** CPU of the stack's five processes per measured message (ms), and the chatbot service's alone. */
  cpuPerMessage: number[];
  chatbotCpuPerMessage: number[];
  deliveriesPerMessage: number[];
  lastDeliveryAfter: number[];
}
const noFigures = (): Figures => ({
  paced: [],
  sequential: [],
  parallel: [],
  rps: [],
  cpuPerMessage: [],
  chatbotCpuPerMessage: [],
  deliveriesPerMessage: [],
  lastDeliveryAfter: [],
});
const figures: Record<Kind, Figures> = { without: noFigures(), with: noFigures() };
let incomplete = 0;

async function createEndpoints(gateway: string, token: string, round: Round): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    const path = `/r${round.index}/e${i}`;
    const created = await postJson<{ endpoint: { id: string }; secret: string }>(
      gateway,
      '/api/workspace/webhooks',
      { url: `${receiverUrl}${path}`, events: WEBHOOK_EVENT_TYPES },
      token,
    );
    secrets.set(path, created.secret);
    ids.push(created.endpoint.id);
  }
  return ids;
}

async function deleteEndpoints(gateway: string, token: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    const res = await fetch(`${gateway}/api/workspace/webhooks/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`DELETE /api/workspace/webhooks/${id} answered ${res.status}: ${await res.text()}`);
  }
}

/** Waits (up to DELIVERY_DEADLINE_MS) until the round's receiver has every delivery its messages so far call for. */
async function awaitDeliveries(round: Round) {
  const expected = ENDPOINTS * (round.messages + round.sessions.size);
  const deadline = Date.now() + DELIVERY_DEADLINE_MS;
  let c = counted(round);
  while (c.unique < expected && Date.now() < deadline) {
    signal.check();
    await sleep(50);
    c = counted(round);
  }
  return { ...c, expected };
}

/** The round's deliveries its messages call for: each (event, endpoint) once, webhook-id deduplicating. */
function counted(round: Round) {
  const ids = new Set<string>();
  let duplicates = 0;
  let foreign = 0;
  let last = 0;
  const byType: Record<string, number> = {};
  for (const d of round.deliveries) {
    if (!round.sessions.has(d.conversationId)) {
      foreign++;
      continue;
    }
    if (ids.has(d.webhookId)) {
      duplicates++;
      continue;
    }
    ids.add(d.webhookId);
    byType[d.type] = (byType[d.type] ?? 0) + 1;
    last = Math.max(last, d.at);
  }
  return { unique: ids.size, duplicates, foreign, last, byType };
}

async function runRound(gateway: string, token: string, uniqueId: string, kind: Kind): Promise<void> {
  await sleep(SETTLE_MS);
  const round: Round = { index: rounds.length, kind, sessions: new Set(), messages: 0, deliveries: [] };
  rounds.push(round);
  const endpoints = kind === 'with' ? await createEndpoints(gateway, token, round) : [];
  try {
    await sendAll(gateway, uniqueId, round, Array.from({ length: CONCURRENT }, newVisitor), WARMUP);
    // Each measured part starts with nothing left to deliver.
    const drained = () => (kind === 'with' ? awaitDeliveries(round) : sleep(SETTLE_MS).then(() => undefined));
    await drained();
    const paced = await sendPaced(gateway, uniqueId, round, PACED);
    await drained();
    const pids = stackChildren();
    const ticks = () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuTicks(pid)]));
    const before = ticks();
    const sequential = await sendAll(gateway, uniqueId, round, [newVisitor()], SEQUENTIAL);
    const parallel = await sendAll(gateway, uniqueId, round, Array.from({ length: CONCURRENT }, newVisitor), PARALLEL);
    const lastAnswer = performance.now();
    // The CPU those messages cost, what they set off after their answers included: in a round with
    // endpoints until the last delivery, in one without for the same pause as before each part.
    const c = await drained();
    const after = ticks();
    const measured = SEQUENTIAL + PARALLEL;
    const spent = (name: string) => ((after[name] ?? 0) - (before[name] ?? 0)) * TICK_MS;
    const cpu = Object.keys(pids).reduce((sum, name) => sum + spent(name), 0) / measured;
    const chatbotCpu = spent('chatbot') / measured;
    const pac = latencies(paced);
    const seq = latencies(sequential.times);
    const par = latencies(parallel.times);
    const rps = parallel.times.length / parallel.seconds;
    const f = figures[kind];
    f.paced.push(...paced);
    f.sequential.push(...sequential.times);
    f.parallel.push(...parallel.times);
    f.rps.push(rps);
    f.cpuPerMessage.push(cpu);
    f.chatbotCpuPerMessage.push(chatbotCpu);
    console.log(
      `round ${round.index + 1} ${kind.padEnd(7)} paced p50 ${ms(pac.p50)} p95 ${ms(pac.p95)} ms; one visitor p50 ${ms(seq.p50)} p95 ${ms(seq.p95)} ms; ` +
        `${CONCURRENT} at once ${rps.toFixed(1)} requests/s, p50 ${ms(par.p50)} p95 ${ms(par.p95)} ms; ` +
        `CPU per message of those two ${ms(cpu)} ms (chatbot ${ms(chatbotCpu)})`,
    );
    if (c) {
      const { expected } = c;
      const perMessage = c.unique / round.messages;
      const lag = c.last ? (c.last - lastAnswer) / 1000 : NaN;
      f.deliveriesPerMessage.push(perMessage);
      f.lastDeliveryAfter.push(lag);
      if (c.unique < expected) incomplete++;
      console.log(
        `  deliveries ${c.unique} of ${expected} expected (${Object.entries(c.byType)
          .map(([t, n]) => `${t} ${n}`)
          .join(', ')}; ${round.messages} messages in ${round.sessions.size} conversations, ` +
          `${perMessage.toFixed(2)} a message); the last ${lag.toFixed(2)} s after the last answer; ` +
          `${c.duplicates} repeated, ${c.foreign} of other rounds' conversations${c.unique < expected ? '; INCOMPLETE' : ''}`,
      );
    }
  } finally {
    if (endpoints.length) await deleteEndpoints(gateway, token, endpoints);
  }
}

console.log(
  `webhook fan-out: ${ENDPOINTS} endpoints subscribed to every event type (${WEBHOOK_EVENT_TYPES.length}) against none; ` +
    `per round ${WARMUP} warm-up, ${PACED} messages from a visitor pausing ${PACE_MS} ms, ${SEQUENTIAL} from one visitor, ${PARALLEL} from ${CONCURRENT} at once; ` +
    `rounds ${order.join(', ')}; zero-latency model; ${cpus().length} cores, load ${load()}`,
);
try {
  const begun = performance.now();
  stack = await startStack({
    portOffset: PORT_OFFSET,
    output: process.env.BENCH_LOGS ? 'inherit' : 'quiet',
    env: {
      DATABASE_URL: databaseUrl,
      QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      PORT: '',
      OPENAI_API_KEY: 'bench-key',
      OPENAI_BASE_URL: model.url,
      CHAT_RATE_PER_VISITOR: '1000000',
      CHAT_RATE_PER_BOT: '10000000',
      TRUST_PROXY: '1',
      // The receiver is on 127.0.0.1, and http.
      KNOWLEDGE_URL_ALLOW_PRIVATE: '1',
    },
  });
  const gateway = stack.url.replace('localhost', '127.0.0.1');
  const { token, uniqueId } = await prepareOwner(gateway);
  console.log(`(stack and owner ready in ${((performance.now() - begun) / 1000).toFixed(1)} s)`);
  for (const kind of order) await runRound(gateway, token, uniqueId, kind);

  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const w = figures.with;
  const wo = figures.without;
  const seqW = latencies(w.sequential);
  const seqWo = latencies(wo.sequential);
  const parW = latencies(w.parallel);
  const parWo = latencies(wo.parallel);
  const pacW = latencies(w.paced);
  const pacWo = latencies(wo.paced);
  const rows: [string, number, number][] = [
    [`paced visitor p50 (ms)`, pacWo.p50, pacW.p50],
    [`paced visitor p95 (ms)`, pacWo.p95, pacW.p95],
    ['one visitor p50 (ms)', seqWo.p50, seqW.p50],
    ['one visitor p95 (ms)', seqWo.p95, seqW.p95],
    [`${CONCURRENT} at once: requests/s (mean of rounds)`, mean(wo.rps), mean(w.rps)],
    [`${CONCURRENT} at once p50 (ms)`, parWo.p50, parW.p50],
    [`${CONCURRENT} at once p95 (ms)`, parWo.p95, parW.p95],
    ['CPU per message, the five (ms)', mean(wo.cpuPerMessage), mean(w.cpuPerMessage)],
    ['CPU per message, the chatbot service (ms)', mean(wo.chatbotCpuPerMessage), mean(w.chatbotCpuPerMessage)],
  ];
  console.log(`\n${'all rounds of a kind'.padEnd(42)}${'without'.padStart(10)}${'with'.padStart(10)}${'with ÷ without'.padStart(16)}`);
  for (const [name, a, b] of rows)
    console.log(`${name.padEnd(42)}${ms(a).padStart(10)}${ms(b).padStart(10)}${(b / a).toFixed(2).padStart(16)}`);
  console.log(
    `\ndeliveries per message ${w.deliveriesPerMessage.map((d) => d.toFixed(2)).join(', ')}; the last delivery ` +
      `${w.lastDeliveryAfter.map((s) => s.toFixed(2)).join(', ')} s after the last answer; ` +
      `signatures checked ${signatures.checked}, failed ${signatures.failed.length}; deliveries to no round's endpoint ${strayDeliveries}; ` +
      `rounds with deliveries missing ${incomplete}; load ${load()}`,
  );
  if (signatures.failed.length) throw new Error(`signatures that did not verify: ${signatures.failed.slice(0, 3).join('; ')}`);
  if (incomplete) throw new Error(`${incomplete} round(s) did not get every delivery within ${DELIVERY_DEADLINE_MS / 1000} s`);
} finally {
  await stack?.stop();
  await model.close();
  agent.destroy();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  if (process.env.BENCH_KEEP !== '1') {
    const redis = createRedis(REDIS_URL);
    await unlinkMatching(redis, `${queuePrefix}:*`).catch(() => 0);
    await redis.quit();
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  }
  await admin.end();
}
