// What the usage and payment contract tests share: exact money in integer units, billing's tables
// read directly, real UsageRecorded events on the stack's queue, and polling for queued work.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { UsageRecordedSchema } from '@parley/proto/parley/events/v1/usage_recorded_pb.js';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { usageRecordedEvent } from '@parley/chat/usage/publishers.ts';
import type { Owner } from './chatbot-fixtures.ts';
import type { Stack } from './stack.ts';

// ---- exact money: dollars as integer units of 1e-10 (NUMERIC(20,10)) ----

export const SCALE = 10;

export function units(amount: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!m) throw new Error(`not a decimal amount: ${amount}`);
  const fraction = (m[3] ?? '').padEnd(SCALE, '0');
  if (fraction.length > SCALE) throw new Error(`more than ${SCALE} decimals: ${amount}`);
  const value = BigInt(m[2]! + fraction);
  return m[1] ? -value : value;
}

/** Integer units back to the shortest decimal text ("0.0000015"), as a JSON client would read it. */
export function decimal(u: bigint): string {
  const negative = u < 0n;
  const digits = (negative ? -u : u).toString().padStart(SCALE + 1, '0');
  const whole = digits.slice(0, -SCALE);
  const fraction = digits.slice(-SCALE).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** The JSON number a REST client gets for an exact amount: the decimal text read by Number(). */
export const asNumber = (u: bigint) => Number(decimal(u));

// gpt-4o-mini: $0.15 per 1M input tokens = 1500 units of 1e-10 dollars a token; $0.60 per 1M output = 6000.
export const PROMPT_UNITS_PER_TOKEN = 1500n;
export const COMPLETION_UNITS_PER_TOKEN = 6000n;

// ---- billing's state, read directly ----

export async function billingQuery<T = any>(stack: Stack, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: stack.billingDatabase.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql.replaceAll('$schema', `"${stack.billingDatabase.schema}"`), params)).rows as T[];
  } finally {
    await client.end();
  }
}

export async function accountRow(stack: Stack, owner: Owner): Promise<{ plan: string; creditBalance: string }> {
  const [row] = await billingQuery(
    stack,
    `SELECT plan::text AS plan, "creditBalance"::text AS "creditBalance" FROM $schema."Account" WHERE "userId" = $1`,
    [owner.userId],
  );
  return row;
}

// ---- usage, as the chat service reports it ----

export interface UsageEvent {
  chatbotId: string;
  chatbotName: string;
  promptTokens: number;
  completionTokens: number;
  occurredAt: Date;
  requestId?: string;
}

/** Publishes real UsageRecorded events on the stack's queue; billing's worker records them. */
export async function publishUsage(stack: Stack, owner: Owner, events: UsageEvent[]): Promise<string[]> {
  const redis = createRedis(stack.redisUrl);
  const producer = createProducer(redis, QUEUES.usageRecorded, UsageRecordedSchema, { prefix: stack.queuePrefix });
  try {
    const ids: string[] = [];
    for (const e of events) {
      const requestId = e.requestId ?? randomUUID();
      ids.push(requestId);
      await producer.publish(usageRecordedEvent({ ...e, requestId, ownerId: owner.userId, model: 'gpt-4o-mini' }), requestId);
    }
    return ids;
  } finally {
    await producer.close();
    await redis.quit();
  }
}

export async function usageRecordCount(stack: Stack, owner: Owner): Promise<number> {
  const [row] = await billingQuery<{ n: number }>(stack, `SELECT count(*)::int AS n FROM $schema."UsageRecord" WHERE "userId" = $1`, [
    owner.userId,
  ]);
  return row!.n;
}

export const costUnits = (e: Pick<UsageEvent, 'promptTokens' | 'completionTokens'>) => ({
  prompt: BigInt(e.promptTokens) * PROMPT_UNITS_PER_TOKEN,
  completion: BigInt(e.completionTokens) * COMPLETION_UNITS_PER_TOKEN,
});

// ---- waiting ----

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `done` holds or the deadline passes; returns the last value either way (the caller asserts). */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(100);
    value = await read();
  }
  return value;
}
