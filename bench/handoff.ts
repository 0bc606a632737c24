// Humans in the loop, the visitor's live stream (docs/adr/0034-humans-in-the-loop.md; prints figures,
// not a test): the whole product, plus a second chat replica (B) and a second gateway (G2) in front
// of it only, and the fake model.
//   a. an agent's reply reaching the visitor's page: the time from the reply call (ReplyToConversation
//      on chat replica A, as the gateway makes it for the agent) to the `message` event on the visitor's
//      SSE stream, p50/p95 over REPLIES replies, with the visitor's stream on the same replica
//      (gateway G1 → chat A) and on other ones (G2 → chat B: the reply crosses Redis pub/sub);
//      target ≤ 200 ms p95;
//   b. STREAMS (500) visitors waiting for a person, each with an open and idle events stream on
//      G1 → chat A: the resident memory (RSS) of that chat process and that gateway before and after,
//      target ≤ 50 MB together; and that every stream is still open after IDLE_MS.
//
//   node bench/handoff.ts            (or: npm run bench handoff)
//
// Uses its own database (parley_bench_handoff) and queue prefix, dropped at the end (BENCH_KEEP=1
// keeps them), ports 900 above the defaults (or BENCH_PORT_OFFSET). BENCH_LOGS=1 shows the stack's
// logs; BENCH_BURST=1 opens the idle streams all at once instead of 50 at a time. Exits with code 1
// when a target is missed.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { cpus } from 'node:os';
import pg from 'pg';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { createServiceClient } from '../services/common/src/rpc-client.ts';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { startFakeOpenAI } from '../services/common/src/testing/fake-openai.ts';
import { PROCESS_MEMORY, root, startStack, type RunningStack } from '../scripts/stack.ts';
import { freshDatabase, postJson, stackChildren } from './bench-stack.ts';
import { load as loadAvg, mb, ms, percentile } from './stats.ts';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE = 'parley_bench_handoff';
const PORT_OFFSET = Number(process.env.BENCH_PORT_OFFSET ?? '900');
const CHAT_PORT = 4003 + PORT_OFFSET;
const CHAT_B_PORT = CHAT_PORT + 10;
const GATEWAY_2_PORT = 8080 + PORT_OFFSET + 10;
/** Conversations the replies of (a) go to, and replies per placement. */
const CONVERSATIONS = 10;
const REPLIES = Number(process.env.BENCH_REPLIES ?? '200');
/** A pause between replies, as an agent types: the figures are of one reply at a time, not of a burst. */
const REPLY_GAP_MS = 20;
const STREAMS = Number(process.env.BENCH_STREAMS ?? '500');
/** How long the streams of (b) stay idle before memory is read again (longer than any idle timeout on the way). */
const IDLE_MS = 20_000;
const LATENCY_TARGET_MS = 200;
const MEMORY_TARGET_BYTES = 50 * 2 ** 20;
const SERVICE_SECRET = randomBytes(32).toString('base64url');

const sleep = (n: number) => new Promise<void>((r) => setTimeout(r, n));
let missed = 0;
const check = (ok: boolean, what: string) => {
  console.log(`  ${ok ? 'ok  ' : 'MISS'} ${what}`);
  if (!ok) missed++;
};

/** A process's resident memory in bytes (VmRSS). */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? '0') * 1024;
}

// --- Processes of this script's own: chat replica B, and gateway G2 in front of it -----------------

function spawnProcess(entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [...PROCESS_MEMORY.nodeFlags, entry], {
    cwd: root,
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

// --- The visitor's side --------------------------------------------------------------------------

const clientAgent = new Agent({ keepAlive: true, maxSockets: Infinity });

interface Visitor {
  ip: string;
  sessionId: string;
  conversationId: string;
}

async function visitorPost(gateway: string, path: string, ip: string, body: unknown): Promise<{ sessionId: string }> {
  const res = await fetch(`${gateway}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { sessionId: string };
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** A visitor who asked a question, was answered, and asked for a person. */
async function waitingVisitor(gateway: string, uniqueId: string, n: number, db: pg.Pool): Promise<Visitor> {
  const ip = `10.77.${Math.floor(n / 250)}.${(n % 250) + 1}`;
  const answered = await visitorPost(gateway, `/api/chatbot/public/${uniqueId}/chat`, ip, { message: `Where is my parcel ${n}?` });
  await visitorPost(gateway, `/api/chatbot/public/${uniqueId}/handoff`, ip, { sessionId: answered.sessionId });
  const { rows } = await db.query(`SELECT id FROM chat."Conversation" WHERE "sessionId" = $1`, [answered.sessionId]);
  return { ip, sessionId: answered.sessionId, conversationId: rows[0].id };
}

/** An open events stream: each message event's content is handed to `onMessage` as it arrives. */
function openStream(
  gateway: string,
  uniqueId: string,
  visitor: Visitor,
  onMessage: (content: string, at: number) => void,
): Promise<{ response: IncomingMessage; close(): void; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    const url = `${gateway}/api/chatbot/public/${uniqueId}/events?sessionId=${visitor.sessionId}`;
    const req = httpRequest(url, { agent: clientAgent, headers: { accept: 'text/event-stream', 'x-forwarded-for': visitor.ip } }, (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => reject(new Error(`events answered ${res.statusCode}: ${text}`)));
        return;
      }
      let buffer = '';
      let closed = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!block.includes('event: message')) continue;
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data) onMessage((JSON.parse(data.slice(6)) as { content: string }).content, at);
        }
      });
      res.on('close', () => (closed = true));
      resolve({ response: res, close: () => req.destroy(), closed: () => closed });
    });
    req.on('error', reject);
    req.end();
  });
}

// --- The run ---------------------------------------------------------------------------------------

const { url: databaseUrl, admin } = await freshDatabase(BASE_DATABASE_URL, DATABASE);
const db = new pg.Client({ connectionString: databaseUrl });
const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
const model = await startFakeOpenAI({ reply: 'Parcels leave the Leeds warehouse within two working days.' });
const queuePrefix = `benchhandoff${randomBytes(4).toString('hex')}`;
const children: ChildProcess[] = [];
let stack: RunningStack | undefined;
try {
  console.log(
    `handoff benchmark: ${cpus().length} CPUs, Node ${process.version}, load ${loadAvg()}, database ${DATABASE}, ` +
      `${REPLIES} replies per placement, ${STREAMS} idle streams`,
  );
  const common = {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    SERVICE_SECRET,
    OPENAI_API_KEY: 'bench-key',
    OPENAI_BASE_URL: model.url,
    // Hundreds of visitors from their own addresses (X-Forwarded-For, trusted one hop), each opening streams.
    CHAT_RATE_PER_VISITOR: '1000000',
    CHAT_RATE_PER_BOT: '10000000',
    TRUST_PROXY: '1',
  };
  stack = await startStack({ portOffset: PORT_OFFSET, output: process.env.BENCH_LOGS ? 'inherit' : 'quiet', env: { ...common, PORT: '' } });
  const g1 = stack.url.replace('localhost', '127.0.0.1');
  const services = {
    AUTH_URL: `http://127.0.0.1:${4001 + PORT_OFFSET}`,
    CHATBOT_URL: `http://127.0.0.1:${4002 + PORT_OFFSET}`,
    BILLING_URL: `http://127.0.0.1:${4004 + PORT_OFFSET}`,
  };
  const chatB = spawnProcess('services/chat/src/main.ts', { ...common, ...services, PORT: String(CHAT_B_PORT), WORKERS: 'off' });
  children.push(chatB);
  await ready(chatB, CHAT_B_PORT, 'chat replica B');
  const g2Process = spawnProcess('gateway/src/main.ts', {
    ...common,
    ...services,
    CHAT_URL: `http://127.0.0.1:${CHAT_B_PORT}`,
    PORT: String(GATEWAY_2_PORT),
    METRICS_PORT: String(9091 + PORT_OFFSET + 10),
    PUBLIC_URL: stack.url,
  });
  children.push(g2Process);
  await ready(g2Process, GATEWAY_2_PORT, 'gateway G2');
  const g2 = `http://127.0.0.1:${GATEWAY_2_PORT}`;
  console.log('stack (gateway G1, chat A), chat replica B and gateway G2 (→ B) ready');

  // A pro owner's chatbot with handoff on, set in the chatbot service's table before anything reads it.
  const { token, user } = await postJson<{ token: string; user: { id: string } }>(g1, '/api/auth/register', {
    email: `bench-handoff-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench-password-2026',
    password2: 'bench-password-2026',
  });
  const bot = await postJson<{ _id: string; uniqueId: string }>(g1, '/api/chatbot', { name: 'Bench helpdesk' }, token);
  const unlimited = await fetch(`${g1}/api/chatbot/${bot._id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ limits: { visitorMessagesPerDay: null, dailySpendLimit: null } }),
  });
  if (!unlimited.ok) throw new Error(`could not lift the bench chatbot's limits: ${unlimited.status}`);
  await db.connect();
  await db.query(`UPDATE billing."Account" SET plan = 'pro', "creditBalance" = "creditBalance" + 50 WHERE "userId" = $1`, [user.id]);
  await db.query(
    `INSERT INTO billing."CreditLedgerEntry" (id, "userId", amount, reason, reference) VALUES ($1, $2, 50, 'bench_credit', $3)`,
    [randomUUID(), user.id, `bench:${randomUUID()}`],
  );
  await db.query(`UPDATE chatbot."Chatbot" SET "handoffEnabled" = true, "handoffTimeoutSeconds" = 3600 WHERE id = $1`, [bot._id]);

  // --- a. An agent's reply to the visitor's page -------------------------------------------------
  const chatA = createServiceClient(ChatService, `http://127.0.0.1:${CHAT_PORT}`, {
    credentials: { caller: 'gateway', secret: SERVICE_SECRET },
    role: 'owner',
  });
  const agent = { id: user.id, name: 'Bench Agent' };
  const placements = [
    { name: 'same replica (G1 → chat A, reply on A)', gateway: g1 },
    { name: 'other replicas (G2 → chat B, reply on A)', gateway: g2 },
  ];
  let visitorCount = 0;
  for (const placement of placements) {
    const visitors: Visitor[] = [];
    for (let i = 0; i < CONVERSATIONS; i++) visitors.push(await waitingVisitor(placement.gateway, bot.uniqueId, visitorCount++, pool));
    const arrivals = new Map<string, number>();
    const waiters = new Map<string, () => void>();
    const streams = await Promise.all(
      visitors.map((v) =>
        openStream(placement.gateway, bot.uniqueId, v, (content, at) => {
          arrivals.set(content, at);
          waiters.get(content)?.();
        }),
      ),
    );
    // The first reply claims each conversation; it is not counted.
    for (const v of visitors)
      await chatA.replyToConversation({
        ownerId: user.id,
        conversationId: v.conversationId,
        agent,
        content: 'warm',
        clientMessageId: randomUUID(),
      });
    const samples: number[] = [];
    for (let r = 0; r < REPLIES; r++) {
      const v = visitors[r % visitors.length];
      const content = `Reply ${r} on ${placement.gateway}`;
      const arrived = new Promise<void>((resolve) => waiters.set(content, resolve));
      const sentAt = performance.now();
      await chatA.replyToConversation({
        ownerId: user.id,
        conversationId: v.conversationId,
        agent,
        content,
        clientMessageId: randomUUID(),
      });
      await Promise.race([arrived, sleep(10_000)]);
      const at = arrivals.get(content);
      if (at === undefined) throw new Error(`reply ${r} never reached the visitor's stream`);
      samples.push(at - sentAt);
      waiters.delete(content);
      await sleep(REPLY_GAP_MS);
    }
    for (const s of streams) s.close();
    samples.sort((x, y) => x - y);
    const p95 = percentile(samples, 95);
    console.log(
      `a. ${placement.name}: ${samples.length} replies, p50 ${ms(percentile(samples, 50))} ms, p95 ${ms(p95)} ms, max ${ms(samples.at(-1)!)} ms`,
    );
    check(p95 <= LATENCY_TARGET_MS, `p95 ≤ ${LATENCY_TARGET_MS} ms`);
  }

  // --- b. Many idle visitor streams ----------------------------------------------------------------
  const idle: Visitor[] = [];
  for (let i = 0; i < STREAMS; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, STREAMS - i) }, () => waitingVisitor(g1, bot.uniqueId, visitorCount++, pool)),
    );
    idle.push(...batch);
  }
  const pids = stackChildren();
  // Both quiet: what the set-up left is collected (the processes run one collection once quiet, rest-memory.ts).
  await sleep(5_000);
  const before = { chat: rss(pids.chat), gateway: rss(pids.gateway) };
  // Opened 50 at a time, as visitors arrive, or all at once with BENCH_BURST=1 (as pages reconnect
  // after a gateway restarted); a page that is refused tries again a second later.
  const open: Awaited<ReturnType<typeof openStream>>[] = [];
  let retried = 0;
  const batch = process.env.BENCH_BURST === '1' ? idle.length : 50;
  for (let i = 0; i < idle.length; i += batch) {
    open.push(
      ...(await Promise.all(
        idle.slice(i, i + batch).map(async (v) => {
          for (let attempt = 0; ; attempt++) {
            try {
              return await openStream(g1, bot.uniqueId, v, () => {});
            } catch (err) {
              if (attempt >= 5) throw err;
              if (retried++ === 0) console.log(`   (a stream was refused, tried again: ${(err as Error).message})`);
              await sleep(1000);
            }
          }
        }),
      )),
    );
  }
  if (retried) console.log(`   ${retried} stream openings refused and tried again`);
  await sleep(IDLE_MS);
  const after = { chat: rss(pids.chat), gateway: rss(pids.gateway) };
  const stillOpen = open.filter((s) => !s.closed()).length;
  const grown = after.chat - before.chat + (after.gateway - before.gateway);
  console.log(
    `b. ${STREAMS} idle streams on G1 → chat A for ${IDLE_MS / 1000} s: chat ${mb(before.chat)} → ${mb(after.chat)}, ` +
      `gateway ${mb(before.gateway)} → ${mb(after.gateway)}; together +${mb(grown)}; ${stillOpen} still open`,
  );
  check(stillOpen === STREAMS, `every stream still open after ${IDLE_MS / 1000} s idle`);
  check(grown <= MEMORY_TARGET_BYTES, `chat + gateway grow ≤ ${mb(MEMORY_TARGET_BYTES)}`);
  for (const s of open) s.close();
  // Closing them lets go of everything: no channel of the chat service is subscribed any more.
  const redis = createRedis(REDIS_URL);
  try {
    let subscribed = -1;
    for (let tries = 0; tries < 50 && subscribed !== 0; tries++) {
      await sleep(200);
      subscribed = ((await redis.pubsub('CHANNELS', `${queuePrefix}:conversation:*`)) as string[]).length;
    }
    check(subscribed === 0, 'no conversation channel left subscribed once the visitors went');
  } finally {
    await redis.quit();
  }
} finally {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await stack?.stop();
  clientAgent.destroy();
  await model.close();
  await db.end().catch(() => {});
  await pool.end().catch(() => {});
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
