// The daily limits' arithmetic and their Redis scripts, against real Redis: what is counted, what a
// refusal leaves (nothing), amounts past 2^53 pico-dollars, settling and taking back.
import { Code, ConnectError } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicChatbotSchema, VisitorLimitsSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { createLogger } from '@parley/common/logger.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { createRedis, unlinkMatching, type Redis } from '@parley/common/redis.ts';
import { testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import {
  answerCost,
  DAILY_LIMIT_REACHED,
  limitsOf,
  redisDailyLimits,
  toPico,
  utcDay,
  type ChatbotLimits,
  type DailyLimits,
} from '../daily-limits.ts';

const log = createLogger('daily-limits-test', 'silent');
const GPT_4O_MINI = { inputPerMillion: toPico('0.15'), outputPerMillion: toPico('0.6') };

describe('money in pico-dollars', () => {
  it('reads exact decimals without rounding, and rounds only past 12 decimals, up', () => {
    expect(toPico('5.00')).toBe(5_000_000_000_000n);
    expect(toPico('0.0000001234')).toBe(123_400n);
    expect(toPico('10000')).toBe(10_000n * 10n ** 12n);
    expect(toPico('0.0000000000001')).toBe(1n);
    expect(toPico('0.0000000000010')).toBe(1n);
    for (const bad of ['', '-1', '1e-7', '5,00', 'abc', '.5']) expect(() => toPico(bad)).toThrow();
  });

  it('costs an answer as billing debits it: tokens × price per million ÷ 10^6, exactly', () => {
    // 1234 × 0.15 / 10^6 + 567 × 0.60 / 10^6 = 0.0001851 + 0.0003402 = $0.0005253
    expect(answerCost({ promptTokens: 1234, completionTokens: 567 }, GPT_4O_MINI)).toBe(toPico('0.0005253'));
    expect(answerCost({ promptTokens: 0, completionTokens: 0 }, GPT_4O_MINI)).toBe(0n);
  });

  it('counts on the UTC day', () => {
    expect(utcDay(new Date('2026-11-25T23:59:59-05:00'))).toBe('2026-11-26');
  });

  it("reads a chatbot's limits, absent ones as none", () => {
    expect(limitsOf(create(PublicChatbotSchema, {}))).toEqual({ visitorMessagesPerDay: null, dailySpendCap: null, proofOfWork: false });
    const limits = create(VisitorLimitsSchema, { visitorMessagesPerDay: 100, dailySpendLimit: '5.00', proofOfWork: true });
    expect(limitsOf(create(PublicChatbotSchema, { limits }))).toEqual({
      visitorMessagesPerDay: 100,
      dailySpendCap: 5_000_000_000_000n,
      proofOfWork: true,
    });
  });
});

let redis: Redis;
let prefix: string;
let limits: DailyLimits;
let keys: ReturnType<typeof redisKeys>;
const DAY = '2026-11-25';
let seq = 0;
const bot = () => `bot-${++seq}`;
const visitorOf = (ip: string | null) => `h(${ip ?? 'unknown'})`;
const only = (l: Partial<ChatbotLimits>): ChatbotLimits => ({ visitorMessagesPerDay: null, dailySpendCap: null, proofOfWork: false, ...l });
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
  limits = redisDailyLimits(redis, { prefix, visitorOf });
});
afterAll(async () => {
  await unlinkMatching(redis, `${prefix}:*`);
  await redis.quit();
});

describe('admit', () => {
  it("counts a visitor's messages up to the limit, refuses past it without counting, and other visitors and days apart", async () => {
    const chatbotId = bot();
    const q = { chatbotId, clientIp: '203.0.113.7', day: DAY, limits: only({ visitorMessagesPerDay: 3 }), mayCost: true };
    for (let i = 0; i < 3; i++) await limits.admit(q);
    const err = await refusal(limits.admit(q));
    expect(err.code).toBe(Code.ResourceExhausted);
    expect(err.rawMessage).toBe(DAILY_LIMIT_REACHED);
    const key = keys.chatLimitVisitorDay(chatbotId, DAY, visitorOf('203.0.113.7'));
    expect(await redis.get(key)).toBe('3');
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(47 * 3600_000);
    expect(ttl).toBeLessThanOrEqual(48 * 3600_000);
    await limits.admit({ ...q, clientIp: '203.0.113.8' });
    await limits.admit({ ...q, day: '2026-11-26' });
  });

  it('refuses a message that may cost once the day is spent, but not a free one', async () => {
    const chatbotId = bot();
    await redis.set(keys.chatLimitSpendDay(chatbotId, DAY), toPico('5.00').toString());
    const q = { chatbotId, clientIp: null, day: DAY, limits: only({ visitorMessagesPerDay: 10, dailySpendCap: toPico('5.00') }) };
    expect((await refusal(limits.admit({ ...q, mayCost: true }))).rawMessage).toBe(DAILY_LIMIT_REACHED);
    expect(await redis.get(keys.chatLimitVisitorDay(chatbotId, DAY, visitorOf(null)))).toBeNull();
    await limits.admit({ ...q, mayCost: false });
    expect(await redis.get(keys.chatLimitVisitorDay(chatbotId, DAY, visitorOf(null)))).toBe('1');
  });

  it('makes no Redis call for a chatbot without limits, nor for a free answer under a spend cap only', async () => {
    const noRedis = redisDailyLimits(new Proxy({} as Redis, { get: () => () => Promise.reject(new Error('Redis was called')) }), {
      prefix,
      visitorOf,
    });
    const q = { chatbotId: bot(), clientIp: null, day: DAY };
    await expect(noRedis.admit({ ...q, limits: only({}), mayCost: true })).resolves.toMatchObject({ visitorKey: null });
    await expect(noRedis.admit({ ...q, limits: only({ dailySpendCap: 1n }), mayCost: false })).resolves.toMatchObject({ visitorKey: null });
  });
});

describe('reserve, settle and take back', () => {
  it('never lets spent + held pass the cap; a refusal takes the visitor’s count back and changes nothing else', async () => {
    const chatbotId = bot();
    const cap = toPico('0.01');
    const q = {
      chatbotId,
      clientIp: '198.51.100.1',
      day: DAY,
      limits: only({ visitorMessagesPerDay: 100, dailySpendCap: cap }),
      mayCost: true,
    };
    const spendKey = keys.chatLimitSpendDay(chatbotId, DAY);
    const visitorKey = keys.chatLimitVisitorDay(chatbotId, DAY, visitorOf('198.51.100.1'));
    const first = await limits.reserve({ counted: await limits.admit(q), cap, amount: toPico('0.006'), prices: null });
    expect(await redis.get(spendKey)).toBe(toPico('0.006').toString());
    expect(await redis.pttl(spendKey)).toBeGreaterThan(47 * 3600_000);
    // 0.006 + 0.004 = the cap exactly: allowed.
    await limits.reserve({ counted: await limits.admit(q), cap, amount: toPico('0.004'), prices: null });
    expect(await redis.get(visitorKey)).toBe('2');
    await limits.takeBack(first, log);
    // 0.004 + 0.0060000000001 passes the cap by a tenth of a nano-dollar: refused.
    const counted = await limits.admit(q);
    expect(await redis.get(visitorKey)).toBe('3');
    const err = await refusal(limits.reserve({ counted, cap, amount: toPico('0.0060000000001'), prices: null }));
    expect(err.rawMessage).toBe(DAILY_LIMIT_REACHED);
    expect(await redis.get(spendKey)).toBe(toPico('0.004').toString());
    expect(await redis.get(visitorKey)).toBe('2');
  });

  it("gives a visitor's message back (an answer that never came), and does nothing for one not counted", async () => {
    const chatbotId = bot();
    const q = { chatbotId, clientIp: '198.51.100.2', day: DAY, limits: only({ visitorMessagesPerDay: 2 }), mayCost: true };
    const visitorKey = keys.chatLimitVisitorDay(chatbotId, DAY, visitorOf('198.51.100.2'));
    const counted = await limits.admit(q);
    await limits.admit(q);
    await refusal(limits.admit(q));
    await limits.uncount(counted, log);
    expect(await redis.get(visitorKey)).toBe('1');
    await limits.admit(q);
    expect(await redis.get(visitorKey)).toBe('2');
    await limits.uncount({ chatbotId, day: DAY, visitorKey: null }, log);
    expect(await redis.get(visitorKey)).toBe('2');
  });

  it('compares amounts exactly past 2^53 pico-dollars (caps above about $9,007)', async () => {
    const chatbotId = bot();
    const cap = toPico('10000.00');
    const counted = { chatbotId, day: DAY, visitorKey: null };
    await limits.reserve({ counted, cap, amount: cap - 1n, prices: null });
    await limits.reserve({ counted, cap, amount: 1n, prices: null });
    await refusal(limits.reserve({ counted, cap, amount: 1n, prices: null }));
    expect(await redis.get(keys.chatLimitSpendDay(chatbotId, DAY))).toBe(cap.toString());
  });

  it("settles a reservation to the answer's exact cost, and keeps the held amount when billing named no prices", async () => {
    const chatbotId = bot();
    const cap = toPico('1');
    const counted = { chatbotId, day: DAY, visitorKey: null };
    const priced = await limits.reserve({ counted, cap, amount: toPico('0.002'), prices: GPT_4O_MINI });
    const unpriced = await limits.reserve({ counted, cap, amount: toPico('0.003'), prices: null });
    await limits.settle(priced, { promptTokens: 1234, completionTokens: 567 }, log);
    await limits.settle(unpriced, { promptTokens: 1, completionTokens: 1 }, log);
    expect(await redis.get(keys.chatLimitSpendDay(chatbotId, DAY))).toBe((toPico('0.0005253') + toPico('0.003')).toString());
  });
});
