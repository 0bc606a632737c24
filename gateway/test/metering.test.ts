// Usage metering end to end: visitors' answers through the gateway, the chat service's
// UsageRecorded events on the real queue, billing's worker recording each answer once and debiting
// the owner exactly (NUMERIC(20,10), checked here with integer arithmetic, never floats), and the
// chatbot's interaction counter fed by ChatbotInteraction.
import { Queue, type Worker } from 'bullmq';
import { fromJson } from '@bufbuild/protobuf';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageRecordedSchema } from '@parley/proto/parley/events/v1/usage_recorded_pb.js';
import { createLogger } from '@parley/common/logger.ts';
import { createProducer, QUEUES, safeJobId } from '@parley/common/queues.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import {
  fakePromptTokens,
  fakeTokenCount,
  startFakeOpenAI,
  type FakeOpenAI,
  type FakeOpenAIRequest,
} from '@parley/common/testing/fake-openai.ts';
import { recordUsageBatch } from '@parley/billing/usage/record-usage.ts';
import { startUsageRecordedWorker } from '@parley/billing/usage/usage-recorded.job.ts';
import { DEV_SESSION_SECRET } from '@parley/chat/config.ts';
import { sessionIds } from '@parley/chat/core/session-id.ts';
import { usageRecordedEvent } from '@parley/chat/usage/publishers.ts';
import { usageRecordedBatch } from '@parley/proto/event-batches.ts';
import { api, type Stack, startStack } from './stack.ts';
import { makePro, type Owner, registerOwner, UUID } from './chatbot-fixtures.ts';

let stack: Stack;
let fake: FakeOpenAI;
let redis: Redis;
let usageQueue: Queue;
const restartedWorkers: Worker[] = [];

const reply = (body: FakeOpenAIRequest) => {
  const last = [...body.messages].reverse().find((m) => m.role === 'user');
  return `Our opening hours are nine to five. You asked: ${last?.content ?? ''}`;
};

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply });
  stack = await startStack({
    chatEnv: {
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: fake.url,
      CHAT_RATE_PER_VISITOR: '1000',
      CHAT_RATE_PER_BOT: '100000',
    },
  });
  redis = createRedis(stack.redisUrl);
  usageQueue = new Queue(QUEUES.usageRecorded, { connection: redis, prefix: stack.queuePrefix });
});
afterAll(async () => {
  for (const worker of restartedWorkers) await worker.close();
  await usageQueue?.close();
  await redis?.quit();
  await stack?.close();
  await fake?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);
/** UsageRecorded events waiting in the queue: a batch job's (the chat service's) and single ones. */
const waitingUsageEvents = async () =>
  (await usageQueue.getWaiting()).reduce(
    (n, job) =>
      n +
      (job.name === usageRecordedBatch.schema.typeName
        ? usageRecordedBatch.unwrap(fromJson(usageRecordedBatch.schema, job.data)).length
        : 1),
    0,
  );
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---- exact money: dollars as integer units of 1e-10 (NUMERIC(20,10)) ----

const SCALE = 10;

function units(amount: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!m) throw new Error(`not a decimal amount: ${amount}`);
  const fraction = (m[3] ?? '').padEnd(SCALE, '0');
  // More than 10 decimals would be a precision the column cannot hold.
  if (fraction.length > SCALE) throw new Error(`more than ${SCALE} decimals: ${amount}`);
  const value = BigInt(m[2]! + fraction);
  return m[1] ? -value : value;
}

// gpt-4o-mini: $0.15 per 1M input tokens = 1500 units of 1e-10 dollars a token; $0.60 per 1M output = 6000.
const PROMPT_UNITS_PER_TOKEN = 1500n;
const COMPLETION_UNITS_PER_TOKEN = 6000n;

// ---- billing's and the chatbot's state, read directly ----

async function billingQuery<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: stack.billingDatabase.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql.replaceAll('$schema', `"${stack.billingDatabase.schema}"`), params)).rows as T[];
  } finally {
    await client.end();
  }
}

interface UsageRow {
  requestId: string;
  chatbotId: string;
  chatbotName: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  promptCost: string;
  completionCost: string;
  totalCost: string;
  occurredAt: Date;
}

const usageRecords = (owner: Owner) =>
  billingQuery<UsageRow>(
    `SELECT "requestId", "chatbotId", "chatbotName", model, "promptTokens", "completionTokens", "totalTokens",
            "promptCost"::text AS "promptCost", "completionCost"::text AS "completionCost", "totalCost"::text AS "totalCost", "occurredAt"
       FROM $schema."UsageRecord" WHERE "userId" = $1 ORDER BY "occurredAt", "requestId"`,
    [owner.userId],
  );

const recordCount = async (owner: Owner) =>
  (await billingQuery<{ n: number }>(`SELECT count(*)::int AS n FROM $schema."UsageRecord" WHERE "userId" = $1`, [owner.userId]))[0]!.n;

const balance = async (owner: Owner) =>
  (await billingQuery<{ b: string }>(`SELECT "creditBalance"::text AS b FROM $schema."Account" WHERE "userId" = $1`, [owner.userId]))[0]!.b;

const usageLedger = (owner: Owner) =>
  billingQuery<{ amount: string; reference: string }>(
    `SELECT amount::text AS amount, reference FROM $schema."CreditLedgerEntry" WHERE "userId" = $1 AND reason = 'usage'`,
    [owner.userId],
  );

async function setCredit(owner: Owner, amount: string) {
  // Reading the user makes sure billing has opened the account.
  expect((await call('/api/auth/current', { token: owner.token })).status).toBe(200);
  const rows = await billingQuery(`UPDATE $schema."Account" SET "creditBalance" = $2 WHERE "userId" = $1 RETURNING "userId"`, [
    owner.userId,
    amount,
  ]);
  expect(rows).toHaveLength(1);
}

/** Polls until `done` holds or the deadline passes; returns the last value either way (the caller asserts). */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(200);
    value = await read();
  }
  return value;
}

// ---- owners, chatbots and visitors ----

async function proOwnerWithKnowledgeableChatbot(credit: string) {
  const owner = await registerOwner(stack, 'metered');
  await makePro(stack, owner);
  await setCredit(owner, credit);
  const created = await call('/api/chatbot', { body: { name: 'Metered Bot' }, token: owner.token });
  expect(created.status).toBe(201);
  const knowledge = await call(`/api/chatbot/${created.body._id}/knowledge-base/text`, {
    body: {
      text: 'The shop opens from nine to five on weekdays and from ten to two on Saturdays. Returns are accepted for 30 days.',
      append: true,
    },
    token: owner.token,
  });
  expect(knowledge.status).toBe(200);
  return { owner, chatbot: created.body as { _id: string; uniqueId: string; name: string } };
}

let ipCounter = 0;
const visitorIp = () => {
  ipCounter++;
  return `10.${Math.floor(ipCounter / 65536) % 256}.${Math.floor(ipCounter / 256) % 256}.${ipCounter % 256}`;
};

/** The stack's chat service signs session ids with the development secret. */
const issuedSessionIds = sessionIds(DEV_SESSION_SECRET);

/** One visitor message, streamed or not; resolves with the answer's status and text. */
async function chat(
  uniqueId: string,
  message: string,
  opts: { sessionId: string; ip: string; stream?: boolean },
): Promise<{ status: number; message?: string }> {
  const res = await fetch(`${stack.url}/api/chatbot/public/${uniqueId}/chat`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': opts.ip,
      ...(opts.stream ? { accept: 'text/event-stream' } : {}),
    },
    body: JSON.stringify({ message, sessionId: opts.sessionId, model: 'gpt-4o-mini' }),
  });
  const text = await res.text();
  if (res.status !== 200) return { status: res.status };
  if (!opts.stream) return { status: 200, message: JSON.parse(text).message };
  const done = text
    .split('\n\n')
    .find((block) => block.startsWith('event: done\n'))
    ?.split('\n')
    .find((l) => l.startsWith('data: '));
  return done ? { status: 200, message: JSON.parse(done.slice('data: '.length)).message } : { status: 502 };
}

/** `count` messages at once: `sessions` visitors, each with their own address and session. */
function chatBurst(uniqueId: string, count: number, { sessions }: { sessions: number }) {
  // Ids the chat service issued, as each visitor's page holds after its first answer (a made-up id
  // would open a new conversation per message).
  const visitors = Array.from({ length: sessions }, () => ({ sessionId: issuedSessionIds.issue(), ip: visitorIp() }));
  return Array.from({ length: count }, (_, i) => {
    const visitor = visitors[i % sessions]!;
    // Different lengths, so the token counts differ from answer to answer.
    return chat(uniqueId, `Question ${i} ${'about the hours '.repeat(i % 7)}?`, { ...visitor, stream: i % 4 === 0 });
  });
}

/** The token pairs the fake model reported, one per answered request. */
const reportedTokens = (requests: FakeOpenAIRequest[]) =>
  requests.map((body) => `${fakePromptTokens(body.messages)}/${fakeTokenCount(reply(body))}`).sort();

/** Every check on an owner's records against their balance; returns the sum of their cost. */
async function expectExactDebits(owner: Owner, initial: string, expectedCount: number) {
  const records = await usageRecords(owner);
  expect(records).toHaveLength(expectedCount);
  expect(new Set(records.map((r) => r.requestId)).size).toBe(expectedCount);
  let fromRecords = 0n;
  let fromTokens = 0n;
  for (const r of records) {
    expect(r.requestId).toMatch(UUID);
    expect(r.model).toBe('gpt-4o-mini');
    expect(r.totalTokens).toBe(r.promptTokens + r.completionTokens);
    const prompt = BigInt(r.promptTokens) * PROMPT_UNITS_PER_TOKEN;
    const completion = BigInt(r.completionTokens) * COMPLETION_UNITS_PER_TOKEN;
    expect(units(r.promptCost)).toBe(prompt);
    expect(units(r.completionCost)).toBe(completion);
    expect(units(r.totalCost)).toBe(prompt + completion);
    fromRecords += units(r.totalCost);
    fromTokens += prompt + completion;
  }
  expect(fromRecords).toBe(fromTokens);
  expect(fromRecords).toBeGreaterThan(0n);
  expect(units(await balance(owner))).toBe(units(initial) - fromRecords);
  // One ledger debit per answer, summing to the same.
  const ledger = await usageLedger(owner);
  expect(ledger).toHaveLength(expectedCount);
  expect(new Set(ledger.map((l) => l.reference))).toEqual(new Set(records.map((r) => `usage:${r.requestId}`)));
  expect(ledger.reduce((sum, l) => sum + units(l.amount), 0n)).toBe(-fromRecords);
  return { records, total: fromRecords };
}

describe('usage metering across the queue', () => {
  it(
    'bills 200 concurrent answers exactly once each, to the exact balance, and counts 200 interactions',
    { timeout: 180_000 },
    async () => {
      const initial = '5.0000000000';
      const { owner, chatbot } = await proOwnerWithKnowledgeableChatbot(initial);

      // Failed answers first: they must bill nothing (the exact count below would show them).
      fake.setBehaviour({ failWith: 500 });
      for (let i = 0; i < 3; i++) {
        expect((await chat(chatbot.uniqueId, `Failing ${i}`, { sessionId: 'failing', ip: visitorIp(), stream: i === 1 })).status).toBe(503);
      }
      fake.reset();

      const results = await Promise.all(chatBurst(chatbot.uniqueId, 200, { sessions: 40 }));
      expect(results.filter((r) => r.status !== 200)).toEqual([]);
      for (const r of results) expect(r.message).toMatch(/^Our opening hours are nine to five\. You asked: Question \d+/);
      expect(fake.requests).toHaveLength(200);
      // Every prompt carried the knowledge base.
      for (const body of fake.requests)
        expect(body.messages.map((m) => m.content).join('\n')).toContain('Returns are accepted for 30 days');

      const count = await waitFor(
        () => recordCount(owner),
        (n) => n >= 200,
      );
      expect(count).toBe(200);
      // Nothing more arrives later (no double billing, no failed answer billed).
      await sleep(1500);
      const { records } = await expectExactDebits(owner, initial, 200);
      for (const r of records) expect(r).toMatchObject({ chatbotId: chatbot._id, chatbotName: 'Metered Bot' });
      // The tokens billed are exactly those the model reported, answer by answer.
      expect(records.map((r) => `${r.promptTokens}/${r.completionTokens}`).sort()).toEqual(reportedTokens(fake.requests));

      // Concurrent messages of one session all land in its one conversation.
      const { schema } = stack.chatDatabase;
      const client = new pg.Client({ connectionString: stack.chatDatabase.databaseUrl });
      await client.connect();
      try {
        const conversations = await client.query(
          `SELECT "sessionId", "messageCount", (SELECT count(*)::int FROM "${schema}"."Message" m WHERE m."conversationId" = c.id) AS stored
           FROM "${schema}"."Conversation" c WHERE "chatbotId" = $1 ORDER BY "sessionId"`,
          [chatbot._id],
        );
        expect(conversations.rows).toHaveLength(40);
        for (const row of conversations.rows)
          expect(row).toEqual({ sessionId: expect.stringMatching(/^[A-Za-z0-9_-]{38}$/), messageCount: 10, stored: 10 });
      } finally {
        await client.end();
      }

      // The chatbot's counter, fed by ChatbotInteraction through the chatbot service's worker.
      const interactions = await waitFor(
        async () => (await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body,
        (c) => c.interactions >= 200,
      );
      expect(interactions.interactions).toBe(200);
      expect(interactions.lastInteraction).toEqual(expect.any(String));
      await sleep(500);
      expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.interactions).toBe(200);
    },
  );

  it(
    'keeps usage waiting while billing is stopped and applies it exactly once after a restart; a duplicate changes nothing',
    { timeout: 180_000 },
    async () => {
      const initial = '2.5000000000';
      const { owner, chatbot } = await proOwnerWithKnowledgeableChatbot(initial);
      fake.reset();

      // The first messages go out while billing's worker still runs...
      const first = chatBurst(chatbot.uniqueId, 10, { sessions: 5 });
      expect(
        await waitFor(
          () => recordCount(owner),
          (n) => n > 0,
          30_000,
        ),
      ).toBeGreaterThan(0);
      // ...then it stops (close() lets the jobs in flight finish).
      const worker = stack.billingParts.usageRecordedWorker;
      expect(worker).toBeDefined();
      await worker!.close();
      expect((await Promise.all(first)).map((r) => r.status)).toEqual(Array(10).fill(200));
      const appliedBeforeStop = await recordCount(owner);

      const rest = await Promise.all(chatBurst(chatbot.uniqueId, 40, { sessions: 10 }));
      expect(rest.filter((r) => r.status !== 200)).toEqual([]);
      expect(fake.requests).toHaveLength(50);

      // Nothing is applied while billing is stopped: the events wait in Redis.
      await sleep(1500);
      expect(await recordCount(owner)).toBe(appliedBeforeStop);
      expect(appliedBeforeStop).toBeLessThan(50);
      expect(await waitingUsageEvents()).toBe(50 - appliedBeforeStop);
      const balanceWhileStopped = units(await balance(owner));

      // A new worker, started as billing's service starts it.
      const deps = { prisma: stack.billingParts.prisma, initialCredit: stack.billingConfig.INITIAL_CREDIT };
      const restarted = startUsageRecordedWorker({
        redis,
        logger: createLogger('billing-test-restarted', 'silent'),
        prefix: stack.queuePrefix,
        recordUsageBatch: (usages) => recordUsageBatch(deps, usages),
      });
      restartedWorkers.push(restarted);

      expect(
        await waitFor(
          () => recordCount(owner),
          (n) => n >= 50,
        ),
      ).toBe(50);
      await sleep(1000);
      const { records, total } = await expectExactDebits(owner, initial, 50);
      expect(records.map((r) => `${r.promptTokens}/${r.completionTokens}`).sort()).toEqual(reportedTokens(fake.requests));
      expect(units(await balance(owner))).toBeLessThan(balanceWhileStopped);
      expect(await waitingUsageEvents()).toBe(0);

      // The same event again, under its own request id and under another job id: each reaches the
      // worker and must be recognised by its request id.
      const original = records[17]!;
      const usage = {
        requestId: original.requestId,
        ownerId: owner.userId,
        chatbotId: original.chatbotId,
        chatbotName: original.chatbotName,
        model: original.model,
        promptTokens: original.promptTokens,
        completionTokens: original.completionTokens,
        occurredAt: original.occurredAt,
      };
      const producer = createProducer(redis, QUEUES.usageRecorded, UsageRecordedSchema, { prefix: stack.queuePrefix });
      const redeliveredJobId = `${original.requestId}-redelivered`;
      // The chat service published it in a batch; here it comes again alone, under its request id and under another job id.
      try {
        await producer.publish(usageRecordedEvent(usage), original.requestId);
        await producer.publish(usageRecordedEvent(usage), redeliveredJobId);
      } finally {
        await producer.close();
      }
      for (const jobId of [original.requestId, redeliveredJobId]) {
        const state = await waitFor(
          async () => (await usageQueue.getJob(safeJobId(jobId)))?.getState(),
          (s) => s === 'completed' || s === 'failed',
          30_000,
        );
        expect(state).toBe('completed');
      }
      await sleep(500);
      const after = await expectExactDebits(owner, initial, 50);
      expect(after.total).toBe(total);
    },
  );
});
