// A visitor's messages per day and their Redis script, against real Redis: what is counted, what a
// refusal leaves (nothing), and giving a message back. The chatbot's daily spend limit is billing's
// (services/billing/test/integration/credit-holds.test.ts).
import { Code, ConnectError } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicChatbotSchema, VisitorLimitsSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { createLogger } from '@parley/common/logger.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { createRedis, unlinkMatching, type Redis } from '@parley/common/redis.ts';
import { testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import {
  DAILY_LIMIT_REACHED,
  visitorLimitsOf,
  redisDailyMessageCounter,
  utcDay,
  type VisitorLimits,
  type DailyMessageCounter,
} from '../daily-limits.ts';

const log = createLogger('daily-limits-test', 'silent');

describe("a chatbot's limits", () => {
  it('counts on the UTC day', () => {
    expect(utcDay(new Date('2026-11-25T23:59:59-05:00'))).toBe('2026-11-26');
  });

  it("reads a chatbot's limits, absent ones as none, the spend limit as given (billing reads the amount)", () => {
    expect(visitorLimitsOf(create(PublicChatbotSchema, {}))).toEqual({
      visitorMessagesPerDay: null,
      dailySpendLimit: null,
      proofOfWork: false,
    });
    const limits = create(VisitorLimitsSchema, { visitorMessagesPerDay: 100, dailySpendLimit: '5.00', proofOfWork: true });
    expect(visitorLimitsOf(create(PublicChatbotSchema, { limits }))).toEqual({
      visitorMessagesPerDay: 100,
      dailySpendLimit: '5.00',
      proofOfWork: true,
    });
  });
});

let redis: Redis;
let prefix: string;
let limits: DailyMessageCounter;
let keys: ReturnType<typeof redisKeys>;
const DAY = '2026-11-25';
let seq = 0;
const bot = () => `bot-${++seq}`;
const visitorOf = (ip: string | null) => `h(${ip ?? 'unknown'})`;
const only = (l: Partial<VisitorLimits>): VisitorLimits => ({
  visitorMessagesPerDay: null,
  dailySpendLimit: null,
  proofOfWork: false,
  ...l,
});
const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectError);
  return err as ConnectError;
};

beforeAll(async () => {
  redis = createRedis((await testInfra()).redisUrl);
  prefix = uniqueName('test-limits');
  keys = redisKeys(prefix);
  limits = redisDailyMessageCounter(redis, { prefix, visitorOf });
});
afterAll(async () => {
  await unlinkMatching(redis, `${prefix}:*`);
  await redis.quit();
});

describe('count', () => {
  it("counts a visitor's messages up to the limit, refuses past it without counting, and other visitors and days apart", async () => {
    const chatbotId = bot();
    const q = { chatbotId, clientIp: '203.0.113.7', day: DAY, visitorLimits: only({ visitorMessagesPerDay: 3 }) };
    for (let i = 0; i < 3; i++) await limits.count(q);
    const err = await refusal(limits.count(q));
    expect(err.code).toBe(Code.ResourceExhausted);
    expect(err.rawMessage).toBe(DAILY_LIMIT_REACHED);
    const key = keys.chatLimitVisitorDay(chatbotId, DAY, visitorOf('203.0.113.7'));
    expect(await redis.get(key)).toBe('3');
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(47 * 3600_000);
    expect(ttl).toBeLessThanOrEqual(48 * 3600_000);
    await limits.count({ ...q, clientIp: '203.0.113.8' });
    await limits.count({ ...q, day: '2026-11-26' });
  });

  it('makes no Redis call for a chatbot without a visitor limit, whatever its spend limit', async () => {
    const noRedis = redisDailyMessageCounter(new Proxy({} as Redis, { get: () => () => Promise.reject(new Error('Redis was called')) }), {
      prefix,
      visitorOf,
    });
    const q = { chatbotId: bot(), clientIp: null, day: DAY };
    await expect(noRedis.count({ ...q, visitorLimits: only({}) })).resolves.toMatchObject({ visitorKey: null });
    await expect(noRedis.count({ ...q, visitorLimits: only({ dailySpendLimit: '1.00' }) })).resolves.toMatchObject({ visitorKey: null });
  });
});

describe('uncount', () => {
  it("gives a visitor's message back (an answer that never came), and does nothing for one not counted", async () => {
    const chatbotId = bot();
    const q = { chatbotId, clientIp: '198.51.100.2', day: DAY, visitorLimits: only({ visitorMessagesPerDay: 2 }) };
    const visitorKey = keys.chatLimitVisitorDay(chatbotId, DAY, visitorOf('198.51.100.2'));
    const counted = await limits.count(q);
    await limits.count(q);
    await refusal(limits.count(q));
    await limits.uncount(counted, log);
    expect(await redis.get(visitorKey)).toBe('1');
    await limits.count(q);
    expect(await redis.get(visitorKey)).toBe('2');
    await limits.uncount({ chatbotId, day: DAY, visitorKey: null }, log);
    expect(await redis.get(visitorKey)).toBe('2');
  });
});
