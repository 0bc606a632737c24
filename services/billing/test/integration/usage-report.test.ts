// GetUsageReport over a real Connect client against usage recorded by the real use case (so the
// UsageDaily rollup is the one recordUsage keeps): exact sums across partial and whole UTC days,
// ranges, the chatbot filter, another owner's chatbot, the cap, and bad input. Expected figures are
// computed here from the token counts alone, in integer units of 10^-10 dollars.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, type Client } from '@connectrpc/connect';
import { BillingService, Plan, type GetUsageReportResponse } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';
import { openAccount } from '../../src/core/open-account.ts';
import { formatMoney } from '../../src/core/money.ts';
import { recordUsage } from '../../src/usage/record-usage.ts';
import { splitIntoDays } from '../../src/usage/usage-report.ts';
import { startBilling, type Billing } from './harness.ts';

interface Usage {
  requestId: string;
  ownerId: string;
  chatbotId: string;
  chatbotName: string;
  promptTokens: number;
  completionTokens: number;
  occurredAt: Date;
}

// gpt-4o-mini: 0.15 and 0.60 dollars per million tokens = 1500 and 6000 units of 10^-10 dollars per token.
const promptUnits = (u: Usage) => BigInt(u.promptTokens) * 1500n;
const completionUnits = (u: Usage) => BigInt(u.completionTokens) * 6000n;

/** Units of 10^-10 dollars as the plain decimal string formatMoney gives. */
function dollars(units: bigint): string {
  const fraction = (units % 10_000_000_000n).toString().padStart(10, '0').replace(/0+$/, '');
  return `${units / 10_000_000_000n}${fraction ? `.${fraction}` : ''}`;
}

const at = (iso: string) => new Date(iso);

/** A seeded generator of numbers in [0, 1) (mulberry32): the same usage and ranges on every run. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
let sequence = 0;
const usage = (
  ownerId: string,
  chatbotId: string,
  chatbotName: string,
  occurredAt: string,
  promptTokens: number,
  completionTokens: number,
): Usage => ({
  requestId: `req-${String(++sequence).padStart(5, '0')}`,
  ownerId,
  chatbotId,
  chatbotName,
  promptTokens,
  completionTokens,
  occurredAt: at(occurredAt),
});

/** What the report must say, from the usage alone. */
function expected(all: Usage[], ownerId: string, start: Date, end: Date, chatbotId = '', limit = 1000) {
  const inRange = all
    .filter((u) => u.ownerId === ownerId && u.occurredAt >= start && u.occurredAt <= end && (!chatbotId || u.chatbotId === chatbotId))
    .sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime() || (a.requestId < b.requestId ? 1 : -1));
  const sum = (list: Usage[], f: (u: Usage) => bigint) => list.reduce((s, u) => s + f(u), 0n);
  const tokens = (list: Usage[]) => list.reduce((s, u) => s + u.promptTokens + u.completionTokens, 0);
  const cost = (list: Usage[]) => dollars(sum(list, promptUnits) + sum(list, completionUnits));
  const groups = (key: (u: Usage) => string) => {
    const map = new Map<string, Usage[]>();
    for (const u of inRange) map.set(key(u), [...(map.get(key(u)) ?? []), u]);
    return map;
  };
  const byChatbot = [...groups((u) => u.chatbotId)].map(([id, list]) => ({
    chatbotId: id,
    chatbotName: list[0].chatbotName, // inRange is newest first
    units: sum(list, promptUnits) + sum(list, completionUnits),
    requestCount: BigInt(list.length),
  }));
  byChatbot.sort((a, b) => (a.units === b.units ? (a.chatbotId < b.chatbotId ? -1 : 1) : a.units > b.units ? -1 : 1));
  return {
    totals: {
      totalCost: cost(inRange),
      totalPromptCost: dollars(sum(inRange, promptUnits)),
      totalCompletionCost: dollars(sum(inRange, completionUnits)),
      totalTokens: BigInt(tokens(inRange)),
      totalPromptTokens: BigInt(inRange.reduce((s, u) => s + u.promptTokens, 0)),
      totalCompletionTokens: BigInt(inRange.reduce((s, u) => s + u.completionTokens, 0)),
      requestCount: BigInt(inRange.length),
    },
    records: inRange.slice(0, limit).map((u) => u.requestId),
    days: [...groups((u) => u.occurredAt.toISOString().slice(0, 10))]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([date, list]) => ({ date, totalCost: cost(list), totalTokens: BigInt(tokens(list)), requestCount: BigInt(list.length) })),
    chatbots: byChatbot.map(({ units, ...c }) => ({ ...c, totalCost: dollars(units) })),
  };
}

/** The parts of a report the expectation covers, as plain values. */
function actual(report: GetUsageReportResponse) {
  const { $typeName: _t, ...totals } = report.totals!;
  return {
    totals,
    records: report.records.map((r) => r.requestId),
    days: report.days.map(({ $typeName: _d, ...d }) => d),
    chatbots: report.chatbots.map(({ $typeName: _c, ...c }) => c),
  };
}

let billing: Billing;
let client: Client<typeof BillingService>;
const deps = () => ({ prisma: billing.parts.prisma, initialCredit: billing.config.INITIAL_CREDIT });
const report = (ownerId: string, start: Date, end: Date, more: { chatbotId?: string; limit?: number } = {}) =>
  client.getUsageReport({ ownerId, startTime: timestampFromDate(start), endTime: timestampFromDate(end), ...more });

// Owner "ann": two chatbots over 2026-03-01..05, with usage on the stroke of midnight and on the last
// millisecond of a day; "alpha" is renamed on the 3rd. Owner "bob" has usage on the same days.
const fixed: Usage[] = [
  usage('ann', 'alpha', 'Alpha', '2026-02-28T23:59:59.999Z', 11, 3),
  usage('ann', 'alpha', 'Alpha', '2026-03-01T00:00:00.000Z', 1000, 100),
  usage('ann', 'beta', 'Beta', '2026-03-01T10:00:00.000Z', 2000, 900),
  usage('ann', 'alpha', 'Alpha', '2026-03-01T23:59:59.999Z', 1, 1),
  usage('ann', 'alpha', 'Alpha', '2026-03-02T00:00:00.000Z', 333, 77),
  usage('ann', 'beta', 'Beta', '2026-03-02T12:00:00.000Z', 5000, 4000),
  usage('ann', 'alpha', 'Alpha v2', '2026-03-03T05:00:00.000Z', 4200, 420),
  usage('ann', 'beta', 'Beta', '2026-03-04T08:00:00.000Z', 123, 456),
  usage('ann', 'alpha', 'Alpha v2', '2026-03-04T23:00:00.000Z', 999, 1),
  usage('ann', 'beta', 'Beta', '2026-03-05T00:00:00.000Z', 7, 7000),
  usage('bob', 'bobs-bot', 'Bob bot', '2026-03-02T00:00:00.000Z', 50_000, 50_000),
  usage('bob', 'bobs-bot', 'Bob bot', '2026-03-03T12:00:00.000Z', 60_000, 1),
];

// Owner "cyd": 401 records at seeded random times over 20 days across three chatbots, for ranges
// cut anywhere.
const random: Usage[] = [];
{
  const rng = seeded(42);
  const from = Date.UTC(2026, 5, 1);
  const times = new Set<number>();
  while (times.size < 400) times.add(from + Math.floor(rng() * 20 * 86_400_000));
  for (const t of times) {
    const bot = Math.floor(rng() * 3);
    random.push(
      usage('cyd', `bot-${bot}`, `Bot ${bot}`, new Date(t).toISOString(), 1 + Math.floor(rng() * 5000), Math.floor(rng() * 2000)),
    );
  }
  // An answer of no output: its completion cost is zero.
  random.push(usage('cyd', 'bot-0', 'Bot 0', '2026-06-10T10:10:10.010Z', 5, 0));
}

beforeAll(async () => {
  billing = await startBilling({ workers: false });
  client = createServiceClient(BillingService, billing.url);
  for (const u of [...fixed, ...random]) {
    await recordUsage(deps(), { ...u, model: 'gpt-4o-mini' });
  }
});

afterAll(async () => {
  await billing?.stop();
});

describe('splitIntoDays', () => {
  const ms = (iso: string) => Date.parse(iso);
  it('cuts a range into a partial first day, whole days and a partial last day', () => {
    expect(splitIntoDays(ms('2026-03-01T10:00:00Z'), ms('2026-03-04T08:00:00Z'))).toEqual({
      wholeDays: [ms('2026-03-02T00:00:00Z'), ms('2026-03-04T00:00:00Z')],
      head: [ms('2026-03-01T10:00:00Z'), ms('2026-03-02T00:00:00Z')],
      tail: [ms('2026-03-04T00:00:00Z'), ms('2026-03-04T08:00:00Z')],
    });
  });

  it('leaves empty partial days when the range starts and ends at midnight', () => {
    const { head, tail, wholeDays } = splitIntoDays(ms('2026-03-01T00:00:00Z'), ms('2026-03-03T00:00:00Z'));
    expect(wholeDays).toEqual([ms('2026-03-01T00:00:00Z'), ms('2026-03-03T00:00:00Z')]);
    expect(head[0]).toBe(head[1]);
    expect(tail[0]).toBe(tail[1]);
  });

  it('reads a range without a whole day from the records only', () => {
    const { head, tail, wholeDays } = splitIntoDays(ms('2026-03-01T10:00:00Z'), ms('2026-03-02T09:00:00Z'));
    expect(head).toEqual([ms('2026-03-01T10:00:00Z'), ms('2026-03-02T09:00:00Z')]);
    expect(wholeDays[0]).toBe(wholeDays[1]);
    expect(tail[0]).toBe(tail[1]);
  });
});

describe('GetUsageReport: sums', () => {
  it.each([
    ['partial first and last days around whole ones', '2026-03-01T05:00:00.000Z', '2026-03-04T12:00:00.000Z'],
    ['whole days exactly (both ends included, to the millisecond)', '2026-03-01T00:00:00.000Z', '2026-03-04T23:59:59.999Z'],
    ['one millisecond inside each end', '2026-03-01T00:00:00.001Z', '2026-03-04T23:59:59.998Z'],
    ['ends on the stroke of midnight (included)', '2026-03-02T00:00:00.000Z', '2026-03-05T00:00:00.000Z'],
    ['within one day', '2026-03-02T06:00:00.000Z', '2026-03-02T18:00:00.000Z'],
    ['across one midnight without a whole day', '2026-03-01T12:00:00.000Z', '2026-03-02T11:00:00.000Z'],
    ['a single instant', '2026-03-02T12:00:00.000Z', '2026-03-02T12:00:00.000Z'],
    ['the whole month', '2026-03-01T00:00:00.000Z', '2026-03-31T23:59:59.999Z'],
    ['a range with no usage', '2025-01-01T00:00:00.000Z', '2025-12-31T00:00:00.000Z'],
  ])('%s', async (_label, from, to) => {
    const got = await report('ann', at(from), at(to));
    expect(actual(got)).toEqual(expected(fixed, 'ann', at(from), at(to)));
  });

  it('gives the exact figures of one hand-checked range', async () => {
    // 03-01T05:00 → 03-04T12:00: beta 03-01 10:00 (2000, 900), alpha 03-01 23:59:59.999 (1, 1),
    // alpha 03-02 (333, 77), beta 03-02 (5000, 4000), alpha 03-03 (4200, 420), beta 03-04 (123, 456).
    const got = await report('ann', at('2026-03-01T05:00:00Z'), at('2026-03-04T12:00:00Z'));
    expect(got.totals).toMatchObject({
      totalPromptCost: '0.00174855', // 11657 tokens × 0.15 / 1M
      totalCompletionCost: '0.0035124', // 5854 tokens × 0.60 / 1M
      totalCost: '0.00526095',
      totalPromptTokens: 11657n,
      totalCompletionTokens: 5854n,
      totalTokens: 17511n,
      requestCount: 6n,
    });
    expect(got.days.map((d) => [d.date, d.totalCost, d.requestCount])).toEqual([
      ['2026-03-01', '0.00084075', 2n],
      ['2026-03-02', '0.00324615', 2n],
      ['2026-03-03', '0.000882', 1n],
      ['2026-03-04', '0.00029205', 1n],
    ]);
    // Costliest first; a chatbot is named as in its newest record of the range.
    expect(got.chatbots.map((c) => [c.chatbotId, c.chatbotName, c.totalCost, c.requestCount])).toEqual([
      ['beta', 'Beta', '0.00428205', 3n],
      ['alpha', 'Alpha v2', '0.0009789', 3n],
    ]);
  });

  it('lists the records newest first with their model and exact costs', async () => {
    const got = await report('ann', at('2026-03-04T00:00:00Z'), at('2026-03-05T00:00:00Z'));
    expect(got.records.map((r) => ({ ...r, $typeName: undefined, occurredAt: timestampDate(r.occurredAt!).toISOString() }))).toEqual([
      expect.objectContaining({
        occurredAt: '2026-03-05T00:00:00.000Z',
        chatbotId: 'beta',
        chatbotName: 'Beta',
        model: 'gpt-4o-mini',
        modelDisplayName: 'GPT-4o mini',
        promptTokens: 7n,
        completionTokens: 7000n,
        totalTokens: 7007n,
        promptCost: '0.00000105',
        completionCost: '0.0042',
        totalCost: '0.00420105',
      }),
      expect.objectContaining({
        occurredAt: '2026-03-04T23:00:00.000Z',
        chatbotId: 'alpha',
        chatbotName: 'Alpha v2',
        totalCost: '0.00015045',
      }),
      expect.objectContaining({ occurredAt: '2026-03-04T08:00:00.000Z', chatbotId: 'beta', totalCost: '0.00029205' }),
    ]);
  });

  it('writes each listed record’s costs exactly as formatMoney writes the stored amounts', async () => {
    const got = await report('cyd', at('2026-06-01T00:00:00Z'), at('2026-06-21T00:00:00Z'));
    const stored = new Map((await billing.parts.prisma.usageRecord.findMany({ where: { ownerId: 'cyd' } })).map((r) => [r.requestId, r]));
    expect(got.records).toHaveLength(401);
    for (const r of got.records) {
      const s = stored.get(r.requestId)!;
      expect([r.promptCost, r.completionCost, r.totalCost]).toEqual([
        formatMoney(s.promptCost),
        formatMoney(s.completionCost),
        formatMoney(s.totalCost),
      ]);
    }
    expect(got.records.some((r) => r.completionCost === '0')).toBe(true); // zero, without decimals
  });

  it('agrees with the records for 60 ranges cut anywhere in 20 days of random usage', async () => {
    const rng = seeded(7);
    const from = Date.UTC(2026, 4, 30);
    for (let i = 0; i < 60; i++) {
      const a = from + Math.floor(rng() * 23 * 86_400_000);
      const b = from + Math.floor(rng() * 23 * 86_400_000);
      // Some ends on a record's own millisecond and some on midnight, where off-by-one errors live.
      const snap = (t: number) =>
        i % 3 === 0 ? random[Math.floor(rng() * random.length)].occurredAt.getTime() : i % 3 === 1 ? t - (t % 86_400_000) : t;
      const [start, end] = [snap(a), snap(b)].sort((x, y) => x - y).map((t) => new Date(t));
      const chatbotId = i % 4 === 0 ? `bot-${i % 3}` : '';
      const got = await report('cyd', start, end, { chatbotId, limit: 50 });
      expect(actual(got), `${start.toISOString()} → ${end.toISOString()} ${chatbotId}`).toEqual(
        expected(random, 'cyd', start, end, chatbotId, 50),
      );
    }
  });

  it('counts a repeated usage event once in every figure', async () => {
    const again = random[10];
    await recordUsage(deps(), { ...again, model: 'gpt-4o-mini' });
    const start = at('2026-06-01T00:00:00Z');
    const end = at('2026-06-21T00:00:00Z');
    expect(actual(await report('cyd', start, end, { limit: 10 }))).toEqual(expected(random, 'cyd', start, end, '', 10));
  });
});

describe('GetUsageReport: account, filter and cap', () => {
  it('returns the account as GetAccount does', async () => {
    const got = await report('ann', at('2026-03-01T00:00:00Z'), at('2026-03-02T00:00:00Z'));
    expect(got.account).toEqual((await client.getAccount({ ownerId: 'ann' })).account);
    expect(got.account?.plan).toBe(Plan.FREE);
  });

  it('opens the account of an owner without one, with nothing used', async () => {
    const got = await report('newcomer', at('2026-03-01T00:00:00Z'), at('2026-03-31T00:00:00Z'));
    expect(got.account).toMatchObject({ ownerId: 'newcomer', creditBalance: '0.01', reservedCredit: '0' });
    expect(got.totals).toMatchObject({ totalCost: '0', totalPromptCost: '0', totalCompletionCost: '0', totalTokens: 0n, requestCount: 0n });
    expect(got.records).toEqual([]);
    expect(got.days).toEqual([]);
    expect(got.chatbots).toEqual([]);
  });

  it('filters on one chatbot, in the totals as in the lists', async () => {
    const start = at('2026-03-01T05:00:00Z');
    const end = at('2026-03-05T00:00:00Z');
    const got = await report('ann', start, end, { chatbotId: 'alpha' });
    expect(actual(got)).toEqual(expected(fixed, 'ann', start, end, 'alpha'));
    expect(got.chatbots.map((c) => c.chatbotId)).toEqual(['alpha']);
    expect(got.totals?.requestCount).toBe(4n);
  });

  it.each([
    ['another owner’s chatbot', 'bobs-bot'],
    ['an unknown chatbot', 'no-such-bot'],
  ])('lists nothing and sums nothing for %s', async (_label, chatbotId) => {
    const got = await report('ann', at('2026-03-01T00:00:00Z'), at('2026-03-31T00:00:00Z'), { chatbotId });
    expect(got.totals).toMatchObject({ totalCost: '0', totalTokens: 0n, requestCount: 0n });
    expect(got.records).toEqual([]);
    expect(got.days).toEqual([]);
    expect(got.chatbots).toEqual([]);
    expect(got.account?.ownerId).toBe('ann');
  });

  it('caps the records at the limit while the totals and request count cover the whole range', async () => {
    const start = at('2026-06-01T00:00:00Z');
    const end = at('2026-06-30T00:00:00Z');
    const got = await report('cyd', start, end, { limit: 3 });
    const all = expected(random, 'cyd', start, end, '', 3);
    expect(got.limit).toBe(3);
    expect(got.records.map((r) => r.requestId)).toEqual(all.records);
    expect(got.totals?.requestCount).toBe(401n);
    expect(got.totals).toEqual(expect.objectContaining(all.totals));
  });

  it('applies the default cap of 1,000 when no limit is given, and accepts 10,000', async () => {
    const range = [at('2026-06-01T00:00:00Z'), at('2026-06-30T00:00:00Z')] as const;
    const byDefault = await report('cyd', ...range);
    expect(byDefault.limit).toBe(1000);
    expect(byDefault.records).toHaveLength(401);
    expect((await report('cyd', ...range, { limit: 10_000 })).limit).toBe(10_000);
  });

  it('accepts a range of exactly 400 days', async () => {
    const start = at('2025-03-01T00:00:00Z');
    const got = await report('ann', start, new Date(start.getTime() + 400 * 86_400_000));
    expect(got.totals?.requestCount).toBe(10n);
  });
});

describe('GetUsageReport: bad input', () => {
  const start = timestampFromDate(at('2026-03-01T00:00:00Z'));
  const end = timestampFromDate(at('2026-03-31T00:00:00Z'));
  it.each([
    ['no start time', { ownerId: 'ann', endTime: end }, 'start_time and end_time are required.'],
    ['no end time', { ownerId: 'ann', startTime: start }, 'start_time and end_time are required.'],
    ['start after end', { ownerId: 'ann', startTime: end, endTime: start }, 'start_time must not be after end_time.'],
    [
      'a range of 400 days and 1 ms',
      {
        ownerId: 'ann',
        startTime: start,
        endTime: timestampFromDate(new Date(at('2026-03-01T00:00:00Z').getTime() + 400 * 86_400_000 + 1)),
      },
      'The date range may be at most 400 days.',
    ],
    [
      'a time before 1970',
      { ownerId: 'ann', startTime: timestampFromDate(at('1969-12-31T00:00:00Z')), endTime: end },
      'start_time and end_time must be between 1970-01-01 and 9999-12-31.',
    ],
    [
      'a time beyond year 9999',
      { ownerId: 'ann', startTime: start, endTime: { seconds: 400_000_000_000n, nanos: 0 } },
      'start_time and end_time must be between 1970-01-01 and 9999-12-31.',
    ],
    [
      'a negative limit',
      { ownerId: 'ann', startTime: start, endTime: end, limit: -1 },
      'limit must be a whole number from 1 to 10000 (0 for the default, 1000).',
    ],
    [
      'a limit above 10,000',
      { ownerId: 'ann', startTime: start, endTime: end, limit: 10_001 },
      'limit must be a whole number from 1 to 10000 (0 for the default, 1000).',
    ],
    ['no owner id', { ownerId: ' ', startTime: start, endTime: end }, 'owner_id is required.'],
    [
      'a chatbot id of 101 characters',
      { ownerId: 'ann', startTime: start, endTime: end, chatbotId: 'c'.repeat(101) },
      'chatbot_id must be at most 100 characters.',
    ],
  ])('refuses %s with InvalidArgument', async (_label, request, message) => {
    const err = await rpcError(client.getUsageReport(request));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe(message);
  });

  it('opens no account for a refused request', async () => {
    await rpcError(client.getUsageReport({ ownerId: 'refused-owner', startTime: end, endTime: start }));
    expect(await billing.parts.prisma.account.count({ where: { ownerId: 'refused-owner' } })).toBe(0);
  });
});

describe('the UsageDaily rollup', () => {
  it('stays exact when 50 usages of one chatbot and day are recorded at once, each of them twice', async () => {
    await openAccount(deps(), 'dee');
    const burst = Array.from({ length: 50 }, (_, i) =>
      usage('dee', 'busy', 'Busy', `2026-07-01T12:00:${String(i).padStart(2, '0')}.000Z`, 100 + i, 10 * i),
    );
    await Promise.all([...burst, ...burst].map((u) => recordUsage(deps(), { ...u, model: 'gpt-4o-mini' })));
    const daily = await billing.parts.prisma.usageDaily.findUniqueOrThrow({
      where: { ownerId_day_chatbotId: { ownerId: 'dee', day: at('2026-07-01'), chatbotId: 'busy' } },
    });
    expect(daily.requestCount).toBe(50);
    expect(daily.promptTokens).toBe(BigInt(50 * 100 + (49 * 50) / 2));
    const whole = [at('2026-07-01T00:00:00Z'), at('2026-07-01T23:59:59.999Z')] as const;
    expect(actual(await report('dee', ...whole))).toEqual(expected(burst, 'dee', ...whole));
  });

  it('equals the usage records grouped by owner, chatbot and UTC day, after everything recorded above', async () => {
    const mismatches = await billing.parts.prisma.$queryRaw<unknown[]>`
      WITH from_records AS (
        SELECT "userId", "chatbotId", ("occurredAt" AT TIME ZONE 'UTC')::date AS day, count(*)::int AS "requestCount",
               sum("promptTokens")::bigint AS "promptTokens", sum("completionTokens")::bigint AS "completionTokens",
               sum("promptCost") AS "promptCost", sum("completionCost") AS "completionCost"
          FROM "UsageRecord" GROUP BY 1, 2, 3
      )
      SELECT * FROM (SELECT * FROM from_records EXCEPT SELECT * FROM "UsageDaily") AS missing
      UNION ALL SELECT * FROM (SELECT * FROM "UsageDaily" EXCEPT SELECT * FROM from_records) AS extra`;
    expect(mismatches).toEqual([]);
    expect(await billing.parts.prisma.usageDaily.count()).toBeGreaterThan(60);
  });
});
