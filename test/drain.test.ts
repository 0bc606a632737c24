// Rollouts cut no answer: the real stack (scripts/stack.ts, as `npm start` runs it) on its own ports,
// database and queue prefix, with a fake model slowed so every answer streams for a while. Streamed
// public chat answers are opened through the gateway, then the chat service (and, separately, the
// gateway) gets SIGTERM mid-stream. The process answers /readyz 503 at once, keeps serving through
// its drain delay, then takes no new connection while the answers are still streaming; every answer
// still ends with its `done` event, and billing records exactly one usage record per answer.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../services/common/src/queues.ts';
import { createRedis, type Redis } from '../services/common/src/redis.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../services/common/src/testing/fake-openai.ts';
import { PROCESSES, startStack, type RunningStack } from '../scripts/stack.ts';

const DATABASE = 'parley_test_drain';
const QUEUE_PREFIX = `drain${randomBytes(3).toString('hex')}`;
/** Answers streamed at once through each signal. */
const ANSWERS = 4;
/** The model's answer: 120 words, streamed three at a time with a pause between pieces (some 6 s in all). */
const REPLY = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
const CHUNK_DELAY_MS = 150;

let stack: RunningStack | undefined;
let model: FakeOpenAI | undefined;
let redis: Redis | undefined;
let admin: pg.Client | undefined;
let db: pg.Client | undefined;
let gateway = '';
let uniqueId = '';
let chatbotId = '';
let offset = 0;
const portOf = (name: string) => PROCESSES.find((p) => p.name === name)!.defaultPort + offset;

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port offset at which every process of the stack finds its port free. */
async function freeOffset(): Promise<number> {
  for (;;) {
    const candidate = 1000 + Math.floor(Math.random() * 20_000);
    const free = await Promise.all(PROCESSES.map((p) => portFree(p.defaultPort + candidate)));
    if (free.every(Boolean)) return candidate;
  }
}

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`${what}: not met in time`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A GET on a new connection: its status, or the connection error's code. */
function probe(port: number, path: string): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end();
  });
}

interface Answer {
  /** Resolves once the first words have arrived. */
  started: Promise<void>;
  /** The whole event stream, once it ended. */
  text: Promise<string>;
  ended: boolean;
}

/** One streamed public chat message, as the chat page sends it, from a visitor of its own. */
function ask(visitor: string): Answer {
  let markStarted!: () => void;
  const started = new Promise<void>((r) => (markStarted = r));
  const answer: Answer = { started, text: Promise.resolve(''), ended: false };
  answer.text = (async () => {
    const res = await fetch(`${gateway}/api/chatbot/public/${uniqueId}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': visitor },
      body: JSON.stringify({ message: `Tell me everything (${visitor})` }),
    });
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) {
      text += decoder.decode(chunk, { stream: true });
      if (text.includes('event: delta')) markStarted();
    }
    markStarted();
    answer.ended = true;
    if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${text.slice(0, 300)}`);
    return text;
  })();
  answer.text.catch(() => markStarted());
  return answer;
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

/** Usage records billing holds for the test's chatbot, once the usage queue has nothing left to do. */
async function settledUsage(): Promise<string[]> {
  const queue = new Queue(QUEUES.usageRecorded, { connection: redis!, prefix: QUEUE_PREFIX });
  try {
    await until(async () => {
      const left = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed');
      return Object.values(left).every((n) => n === 0);
    }, 'usage queue drained');
  } finally {
    await queue.close();
  }
  const { rows } = await db!.query<{ requestId: string }>(`SELECT "requestId" FROM billing."UsageRecord" WHERE "chatbotId" = $1`, [
    chatbotId,
  ]);
  return rows.map((r) => r.requestId);
}

/**
 * Opens ANSWERS streamed answers, SIGTERMs `target` once each has its first words, and checks the
 * drain: readiness 503 at once, the listener closed while answers still stream, every answer ending
 * with `done`, the process gone and (restarted by the stack's supervisor) ready again.
 */
async function drainDuring(target: 'chat' | 'gateway', group: string): Promise<string[]> {
  const port = portOf(target);
  const pid = stack!.pid(target)!;
  const answers = Array.from({ length: ANSWERS }, (_, i) => ask(`10.88.${group}.${i + 1}`));
  await Promise.all(answers.map((a) => a.started));
  process.kill(pid, 'SIGTERM');
  // Readiness fails as soon as the signal is handled, while the process still accepts connections
  // (SHUTDOWN_DRAIN_MS): the probe sees 503 before it ever sees a closed port.
  let ready: { status: number } | { error: string };
  do ready = await probe(port, '/readyz');
  while ('status' in ready && ready.status === 200);
  expect(ready, `${target} /readyz after SIGTERM`).toEqual({ status: 503 });
  // Then it takes no new connection, though answers are still streaming.
  await until(async () => 'error' in (await probe(port, '/healthz')), `${target} stops accepting connections`);
  const streaming = answers.filter((a) => !a.ended).length;
  expect(streaming, 'answers still streaming when the listener closed').toBeGreaterThan(0);
  const texts = await Promise.all(answers.map((a) => a.text));
  for (const text of texts) {
    expect(text).not.toContain('event: error');
    expect(text).toMatch(/event: done\ndata: .*"messageId"/);
    expect(text).toContain(REPLY.split(' ').at(-1));
  }
  // The supervisor starts a new process in its place; the next round waits for it.
  await until(() => (stack!.pid(target) ?? pid) !== pid, `${target} exited`);
  await until(async () => {
    const res = await probe(port, '/readyz');
    return 'status' in res && res.status === 200;
  }, `${target} back`);
  return texts;
}

beforeAll(async () => {
  const base = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
  const adminUrl = new URL(base);
  adminUrl.pathname = '/postgres';
  admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  const databaseUrl = new URL(base);
  databaseUrl.pathname = `/${DATABASE}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  redis = createRedis(redisUrl);

  model = await startFakeOpenAI({ reply: REPLY, chunkDelayMs: CHUNK_DELAY_MS });
  offset = await freeOffset();
  stack = await startStack({
    portOffset: offset,
    output: 'quiet',
    env: {
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: redisUrl,
      QUEUE_PREFIX,
      LOG_LEVEL: 'warn',
      PORT: '',
      OPENAI_API_KEY: 'drain-key',
      OPENAI_BASE_URL: model.url,
      TRUST_PROXY: '1',
      // Long enough that a probe sent right after the signal finds the listener still open.
      SHUTDOWN_DRAIN_MS: '1500',
    },
  });
  gateway = stack.url.replace('localhost', '127.0.0.1');

  const { token, user } = await api<{ token: string; user: { id: string } }>('POST', '/api/auth/register', {
    email: `drain-${randomBytes(4).toString('hex')}@example.com`,
    password: 'drain-password-2026',
    password2: 'drain-password-2026',
  });
  const bot = await api<{ _id: string; uniqueId: string }>('POST', '/api/chatbot', { name: 'Drain assistant' }, token);
  await api('PUT', `/api/chatbot/${bot._id}`, { limits: { visitorMessagesPerDay: null, dailySpendLimit: null } }, token);
  uniqueId = bot.uniqueId;
  chatbotId = bot._id;
  db = new pg.Client({ connectionString: databaseUrl.toString() });
  await db.connect();
  // Billing opens the account from the UserRegistered job; then credit that never runs out.
  await until(async () => {
    const { rowCount } = await db!.query(`UPDATE billing."Account" SET "creditBalance" = 1000 WHERE "userId" = $1`, [user.id]);
    return rowCount === 1;
  }, 'billing opened the account');
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await model?.close();
  redis?.disconnect();
  await db?.end();
  await admin?.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).catch(() => {});
  await admin?.end();
}, 90_000);

describe('a rollout cuts no answer', () => {
  it('every process answers its probes on its own port once started', async () => {
    for (const { name } of PROCESSES) {
      for (const path of ['/healthz', '/startupz', '/readyz'])
        expect(await probe(portOf(name), path), `${name} ${path}`).toEqual({ status: 200 });
    }
  });

  it('SIGTERM to the chat service mid-stream: every answer finishes and is billed once', async () => {
    await drainDuring('chat', '1');
    expect((await settledUsage()).length).toBe(ANSWERS);
  }, 180_000);

  it('SIGTERM to the gateway mid-stream: every answer finishes and is billed once', async () => {
    await drainDuring('gateway', '2');
    const usage = await settledUsage();
    expect(usage.length).toBe(2 * ANSWERS);
    expect(new Set(usage).size).toBe(usage.length);
  }, 180_000);
});
