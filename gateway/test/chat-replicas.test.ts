// Visitors' messages through the gateway to three chat service replicas sharing one database and
// Redis (CHAT_URL lists them; services/common/src/transport/balanced.ts spreads the calls), one of
// them killed (SIGKILL) while answers are in flight: only its answers in flight fail, with the clear
// 503 or the stream's `error` event; every later message is answered (a call to the dead address is
// refused and sent to another); no question reaches the model twice, and every answered message is
// billed once: an answer the killed replica gave in the moment before the kill, whose usage event was
// still gathered for a batch (ADR 29) and died with it, is settled when its hold expires, from the
// stored exchange (ADR 37), and no hold is left open.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIRequest } from '@parley/common/testing/fake-openai.ts';
import { UNAVAILABLE_MESSAGE } from '../src/http/errors.ts';
import { makePro, registerOwner } from './chatbot-fixtures.ts';
import { api, startGateway, startStack, TEST_SERVICE_SECRET, type Stack } from './stack.ts';

const root = new URL('../..', import.meta.url).pathname;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let fake: FakeOpenAI;
let stack: Stack;
let gateway: Awaited<ReturnType<typeof startGateway>>;
const children: ChildProcess[] = [];
let victim: ChildProcess;
let uniqueId: string;
let userId: string;

const question = (body: FakeOpenAIRequest) => [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
const CHAT_ENV = { OPENAI_API_KEY: 'test-key', CHAT_RATE_PER_VISITOR: '1000', CHAT_RATE_PER_BOT: '100000' };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A chat service replica in a process of its own, on the stack's database, Redis and services. */
async function startChatReplica(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['services/chat/src/main.ts'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      ...CHAT_ENV,
      OPENAI_BASE_URL: fake.url,
      PORT: String(port),
      SERVICE_HOST: '127.0.0.1',
      DATABASE_URL: stack.chatDatabase.databaseUrl,
      CHAT_DB_SCHEMA: stack.chatDatabase.schema,
      REDIS_URL: stack.redisUrl,
      QUEUE_PREFIX: stack.queuePrefix,
      CHATBOT_URL: stack.chatbotUrl,
      BILLING_URL: stack.billingUrl,
      SERVICE_SECRET: TEST_SERVICE_SECRET,
      // The in-process replica runs the queue workers; these only answer.
      WORKERS: 'off',
      LOG_LEVEL: 'error',
    },
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`a chat replica exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) return { url, child };
    if (Date.now() > deadline) throw new Error('a chat replica did not become ready');
    await sleep(200);
  }
}

async function billingQuery<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: stack.billingDatabase.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql.replaceAll('$schema', `"${stack.billingDatabase.schema}"`), params)).rows as T[];
  } finally {
    await client.end();
  }
}

async function chatQuery<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: stack.chatDatabase.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql.replaceAll('$schema', `"${stack.chatDatabase.schema}"`), params)).rows as T[];
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  // Answers of ten words, a word every 100 ms: many are in flight at once.
  fake = await startFakeOpenAI({ reply: (body) => `You asked ${question(body)}. The shop opens at nine.` });
  stack = await startStack({
    // Holds expire 15 s after they are taken (far past an answer here) and the in-process replica,
    // which runs the workers, reconciles expired ones every second: the killed replica's are settled
    // within the test.
    billingEnv: { CREDIT_HOLD_TTL_MS: '15000' },
    chatEnv: { ...CHAT_ENV, OPENAI_BASE_URL: fake.url, RECONCILE_HOLDS_MS: '1000' },
  });
  const [one, two] = await Promise.all([startChatReplica(), startChatReplica()]);
  victim = two.child;
  gateway = await startGateway({ ...stack.gatewayEnv, CHAT_URL: [stack.chatUrl, one.url, two.url].join(',') });

  const owner = await registerOwner(stack, 'replicas');
  userId = owner.userId;
  await makePro(stack, owner);
  const rows = await billingQuery(`UPDATE $schema."Account" SET "creditBalance" = 100 WHERE "userId" = $1 RETURNING "userId"`, [userId]);
  expect(rows).toHaveLength(1);
  const created = await api(stack.url, '/api/chatbot', { body: { name: 'Replicated Bot' }, token: owner.token });
  expect(created.status).toBe(201);
  uniqueId = created.body.uniqueId;
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await gateway?.close();
  await stack?.close();
  await fake?.close();
});

let visitor = 0;

/** One visitor message; its outcome as the visitor sees it. */
async function send(message: string, stream: boolean): Promise<'answered' | 'unavailable' | string> {
  visitor++;
  const res = await fetch(`${gateway.url}/api/chatbot/public/${uniqueId}/chat`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': `10.7.${Math.floor(visitor / 256)}.${visitor % 256}`,
      ...(stream ? { accept: 'text/event-stream' } : {}),
    },
    body: JSON.stringify({ message, model: 'gpt-4o-mini' }),
  });
  const text = await res.text();
  if (res.status === 503 && JSON.parse(text).message === UNAVAILABLE_MESSAGE) return 'unavailable';
  if (res.status !== 200) return `status ${res.status}: ${text}`;
  if (!stream) return JSON.parse(text).message.includes(message) ? 'answered' : `answer ${text}`;
  const events = text.split('\n\n').filter((block) => block.trim());
  const last = events.at(-1) ?? '';
  if (last.startsWith('event: done\n') && last.includes(message)) return 'answered';
  if (last === `event: error\ndata: ${JSON.stringify({ message: UNAVAILABLE_MESSAGE })}`) return 'unavailable';
  return `stream ended with ${last}`;
}

describe('three chat replicas behind one CHAT_URL, one killed mid-load', () => {
  it('fails only the killed replica’s answers in flight, answers every later message, and bills each answer exactly once', async () => {
    fake.setBehaviour({ chunkDelayMs: 100 });
    const asked = fake.requests.length;
    const first = Array.from({ length: 30 }, (_, i) => send(`first question ${i}`, i % 2 === 0));
    // Killed once most answers are under way (each replica has several in flight).
    while (fake.requests.length - asked < 20) await sleep(20);
    victim.kill('SIGKILL');
    const firstOutcomes = await Promise.all(first);

    // Every message after the kill is answered: the dead address refuses, and the call goes to another.
    fake.setBehaviour({ chunkDelayMs: 0 });
    const later: string[] = [];
    for (let i = 0; i < 12; i += 4) {
      later.push(...(await Promise.all([0, 1, 2, 3].map((j) => send(`later question ${i + j}`, j % 2 === 0)))));
    }
    expect(later).toEqual(Array(12).fill('answered'));
    // The gateway stays ready: one replica of the list answers.
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);

    const unexpected = firstOutcomes.filter((o) => o !== 'answered' && o !== 'unavailable');
    expect(unexpected).toEqual([]);
    const failed = firstOutcomes.filter((o) => o === 'unavailable').length;
    // The killed replica had answers in flight, and only it: the other two answered theirs.
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThan(20);
    const answered = firstOutcomes.length - failed + later.length;

    // No question reached the model twice: no call was sent again after it reached a replica.
    const questions = fake.requests.slice(asked).map(question);
    expect(new Set(questions).size).toBe(questions.length);
    // (A message the killed replica held before it asked the model never reached the model.)
    expect(questions.length).toBeGreaterThanOrEqual(answered);
    expect(questions.length).toBeLessThanOrEqual(42);

    // Each question stored at most once, every answered one exactly once.
    const stored = await chatQuery<{ content: string; n: number }>(
      `SELECT m.content, count(*)::int AS n FROM $schema."Message" m WHERE m.role = 'user' AND m.content LIKE '%question %' GROUP BY m.content`,
    );
    expect(stored.filter((row) => row.n !== 1)).toEqual([]);
    expect(stored.length).toBeGreaterThanOrEqual(answered);

    // Billing: one usage record per answer, none twice. An answer the killed replica gave in the moment
    // before the kill may have lost its usage event, still gathered for its batch (ADR 29): its hold
    // expires and the reconciliation settles it from the stored exchange. Waits until no hold is open.
    const count = async (sql: string) => (await billingQuery<{ n: number }>(sql, [userId]))[0].n;
    const openHolds = () => count(`SELECT count(*)::int AS n FROM $schema."CreditReservation" WHERE "userId" = $1`);
    for (const deadline = Date.now() + 120_000; (await openHolds()) > 0 && Date.now() < deadline;) await sleep(500);
    expect(await openHolds()).toBe(0);
    const records = await count(`SELECT count(*)::int AS n FROM $schema."UsageRecord" WHERE "userId" = $1`);
    // Every answer a visitor received is billed; an answer stored as the replica died, its visitor told
    // the service was unavailable, is billed too (it was given), and nothing past what reached the model.
    expect(records).toBeGreaterThanOrEqual(answered);
    expect(records).toBeLessThanOrEqual(questions.length);
    const [{ distinct }] = await billingQuery<{ distinct: number }>(
      `SELECT count(DISTINCT "requestId")::int AS distinct FROM $schema."UsageRecord" WHERE "userId" = $1`,
      [userId],
    );
    expect(distinct).toBe(records);
    // Debits match records one for one.
    const [{ debits }] = await billingQuery<{ debits: number }>(
      `SELECT count(*)::int AS debits FROM $schema."CreditLedgerEntry" WHERE "userId" = $1 AND reason = 'usage'`,
      [userId],
    );
    expect(debits).toBe(records);
  }, 300_000);
});
