// GET /api/user/usage and GraphQL `usage` against the real stack: usage recorded by billing's worker
// from real UsageRecorded events, then read back through the gateway. Shape exactly as docs/product.md, Usage (plus
// the additive fields), exact sums, ranges, the chatbot filter, ownership, deleted and renamed
// chatbots, bad input and sign-in.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, type Stack, startStack } from './stack.ts';
import { makePro, type Owner, registerOwner } from './chatbot-fixtures.ts';
import { asNumber, costUnits, publishUsage, units, usageRecordCount, waitFor, type UsageEvent } from './billing-fixtures.ts';
import { BAD_DATES_MESSAGE, REVERSED_RANGE_MESSAGE } from '../src/features/usage/usage.ts';

let stack: Stack;
let owner: Owner;
let other: Owner;
const chatbots: Record<'alpha' | 'beta' | 'gamma' | 'others', { _id: string; name: string }> = {} as never;
// Whole seconds, so ISO strings of the boundaries carry no rounding.
const now = new Date(Math.floor(Date.now() / 1000) * 1000);
const ago = (ms: number) => new Date(now.getTime() - ms);
const HOUR = 3600_000;
const DAY = 24 * HOUR;

type Recorded = UsageEvent & { requestId: string; owner: 'owner' | 'other'; key: keyof typeof chatbots };
const recorded: Recorded[] = [];

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);
const usage = (token: string | undefined, params: Record<string, string>) =>
  call(`/api/user/usage?${new URLSearchParams(params)}`, { token });
const range = (startDate: Date, endDate: Date, extra: Record<string, string> = {}) => ({
  startDate: startDate.toISOString(),
  endDate: endDate.toISOString(),
  ...extra,
});

beforeAll(async () => {
  stack = await startStack();
  owner = await registerOwner(stack, 'usage');
  other = await registerOwner(stack, 'usage-other');
  await makePro(stack, owner);
  for (const [key, name, who] of [
    ['alpha', 'Alpha', owner],
    ['beta', 'Beta', owner],
    ['gamma', 'Gamma', owner],
    ['others', 'Not Yours', other],
  ] as const) {
    const res = await call('/api/chatbot', { body: { name }, token: who.token });
    expect(res.status).toBe(201);
    chatbots[key] = { _id: res.body._id, name };
  }

  const plan: [keyof typeof chatbots, number, number, Date][] = [
    ['alpha', 100, 20, ago(1 * HOUR)],
    ['alpha', 7, 3, ago(3 * HOUR)],
    ['alpha', 1234, 567, ago(2 * DAY)],
    ['beta', 10, 1, ago(5 * HOUR)],
    ['beta', 55, 44, ago(10 * DAY)],
    ['gamma', 3, 9, ago(6 * HOUR)],
    ['alpha', 1000, 1000, ago(40 * DAY)],
    ['alpha', 9, 9, ago(400 * DAY)],
    ['others', 999, 999, ago(1 * HOUR)],
  ];
  for (const [key, promptTokens, completionTokens, occurredAt] of plan) {
    const who = key === 'others' ? other : owner;
    const event = {
      chatbotId: chatbots[key]._id,
      chatbotName: chatbots[key].name,
      promptTokens,
      completionTokens,
      occurredAt,
      requestId: randomUUID(),
    };
    await publishUsage(stack, who, [event]);
    recorded.push({ ...event, owner: key === 'others' ? 'other' : 'owner', key });
  }
  expect(
    await waitFor(
      () => usageRecordCount(stack, owner),
      (n) => n >= 8,
    ),
  ).toBe(8);
  expect(
    await waitFor(
      () => usageRecordCount(stack, other),
      (n) => n >= 1,
    ),
  ).toBe(1);

  // After the usage: the report names chatbots as they are now, and a deleted one as N/A (null).
  expect(
    (await call(`/api/chatbot/${chatbots.alpha._id}`, { method: 'PUT', body: { name: 'Alpha Renamed' }, token: owner.token })).status,
  ).toBe(200);
  chatbots.alpha.name = 'Alpha Renamed';
  expect((await call(`/api/chatbot/${chatbots.gamma._id}`, { method: 'DELETE', token: owner.token })).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

/** What the report must say for the owner's records selected by `keep`. */
function expected(keep: (r: Recorded) => boolean) {
  const rows = recorded.filter((r) => r.owner === 'owner' && keep(r));
  const sum = (f: (r: Recorded) => bigint) => rows.reduce((s, r) => s + f(r), 0n);
  const prompt = sum((r) => costUnits(r).prompt);
  const completion = sum((r) => costUnits(r).completion);
  const currentName = (r: Recorded) => (r.key === 'gamma' ? null : chatbots[r.key].name);
  const days = new Map<string, Recorded[]>();
  for (const r of rows) {
    const day = r.occurredAt.toISOString().slice(0, 10);
    days.set(day, [...(days.get(day) ?? []), r]);
  }
  const bots = new Map<string, Recorded[]>();
  for (const r of rows) bots.set(r.chatbotId, [...(bots.get(r.chatbotId) ?? []), r]);
  const cost = (r: Recorded) => costUnits(r).prompt + costUnits(r).completion;
  return {
    rows,
    units: { total: prompt + completion, prompt, completion },
    overallUsage: {
      totalCost: asNumber(prompt + completion),
      totalPromptCost: asNumber(prompt),
      totalCompletionCost: asNumber(completion),
      totalTokens: rows.reduce((s, r) => s + r.promptTokens + r.completionTokens, 0),
      totalPromptTokens: rows.reduce((s, r) => s + r.promptTokens, 0),
      totalCompletionTokens: rows.reduce((s, r) => s + r.completionTokens, 0),
      totalRequests: rows.length,
    },
    recentRequests: [...rows]
      .sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime())
      .map((r) => ({
        timestamp: r.occurredAt.toISOString(),
        chatbot: currentName(r) === null ? null : { _id: r.chatbotId, name: currentName(r) },
        model: { displayName: 'GPT-4o mini' },
        promptTokens: r.promptTokens,
        completionTokens: r.completionTokens,
        totalTokens: r.promptTokens + r.completionTokens,
        totalCost: asNumber(cost(r)),
      })),
    dailyUsage: [...days.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([date, rs]) => ({
        date,
        totalCost: asNumber(rs.reduce((s, r) => s + cost(r), 0n)),
        totalTokens: rs.reduce((s, r) => s + r.promptTokens + r.completionTokens, 0),
        requests: rs.length,
      })),
    usageByChatbot: [...bots.entries()]
      .map(([chatbotId, rs]) => ({
        chatbotId,
        name: currentName(rs[0]!),
        totalCost: asNumber(rs.reduce((s, r) => s + cost(r), 0n)),
        requests: rs.length,
      }))
      .sort((a, b) => a.chatbotId.localeCompare(b.chatbotId)),
  };
}

const byId = <T extends { chatbotId: string }>(list: T[]) => [...list].sort((a, b) => a.chatbotId.localeCompare(b.chatbotId));

function expectReport(body: any, want: ReturnType<typeof expected>) {
  expect(body.overallUsage).toEqual(want.overallUsage);
  expect(body.recentRequests).toEqual(want.recentRequests);
  expect(body.dailyUsage).toEqual(want.dailyUsage);
  expect(byId(body.usageByChatbot)).toEqual(want.usageByChatbot);
  // Costliest first.
  const costs = body.usageByChatbot.map((c: { totalCost: number }) => c.totalCost);
  expect(costs).toEqual([...costs].sort((a, b) => b - a));
}

describe('GET /api/user/usage', () => {
  it('answers the Usage response exactly, plus the additive fields, and is never cached', async () => {
    const res = await usage(owner.token, range(ago(30 * DAY), now));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'currentCreditBalance',
        'dailyUsage',
        'overallUsage',
        'recentRequests',
        'recentRequestsLimit',
        'subscription',
        'usageByChatbot',
      ].sort(),
    );
    expect(Object.keys(res.body.overallUsage).sort()).toEqual(
      [
        'totalCompletionCost',
        'totalCompletionTokens',
        'totalCost',
        'totalPromptCost',
        'totalPromptTokens',
        'totalRequests',
        'totalTokens',
      ].sort(),
    );
    expect(res.body.recentRequests.length).toBeGreaterThan(0);
    for (const r of res.body.recentRequests) {
      expect(Object.keys(r).sort()).toEqual(
        ['chatbot', 'completionTokens', 'model', 'promptTokens', 'timestamp', 'totalCost', 'totalTokens'].sort(),
      );
      if (r.chatbot) expect(Object.keys(r.chatbot).sort()).toEqual(['_id', 'name']);
      expect(Object.keys(r.model)).toEqual(['displayName']);
      for (const k of ['promptTokens', 'completionTokens', 'totalTokens', 'totalCost']) expect(typeof r[k]).toBe('number');
    }
    for (const d of res.body.dailyUsage) expect(Object.keys(d).sort()).toEqual(['date', 'requests', 'totalCost', 'totalTokens']);
    for (const c of res.body.usageByChatbot) expect(Object.keys(c).sort()).toEqual(['chatbotId', 'name', 'requests', 'totalCost']);
    expect(res.body.subscription).toBe('pro');
    expect(typeof res.body.currentCreditBalance).toBe('number');
    expect(Number.isInteger(res.body.recentRequestsLimit) && res.body.recentRequestsLimit > 0).toBe(true);
  });

  it("sums the last 30 days exactly, lists them newest first, by day and by chatbot, with each chatbot's current name or null once deleted", async () => {
    const res = await usage(owner.token, range(ago(30 * DAY), now));
    expect(res.status).toBe(200);
    const want = expected((r) => r.occurredAt >= ago(30 * DAY));
    expect(want.rows).toHaveLength(6);
    expectReport(res.body, want);
    // The deleted chatbot's usage stays in the totals; the renamed one shows its new name.
    expect(res.body.recentRequests.filter((r: { chatbot: unknown }) => r.chatbot === null)).toHaveLength(1);
    expect(res.body.usageByChatbot.find((c: { chatbotId: string }) => c.chatbotId === chatbots.gamma._id)).toMatchObject({
      name: null,
      requests: 1,
    });
    expect(res.body.recentRequests[0].chatbot).toEqual({ _id: chatbots.alpha._id, name: 'Alpha Renamed' });
  });

  it('matches the balance and plan that /api/auth/current shows', async () => {
    const [report, current] = await Promise.all([
      usage(owner.token, range(ago(DAY), now)),
      call('/api/auth/current', { token: owner.token }),
    ]);
    expect(report.body.currentCreditBalance).toBe(current.body.usage.creditBalance);
    expect(report.body.subscription).toBe(current.body.subscription);
    const otherReport = await usage(other.token, range(ago(DAY), now));
    expect(otherReport.body.subscription).toBe('free');
  });

  it('selects by range: a week, a year, and bare dates covering whole UTC days', async () => {
    const week = await usage(owner.token, range(ago(7 * DAY), now));
    expectReport(
      week.body,
      expected((r) => r.occurredAt >= ago(7 * DAY)),
    );
    expect(week.body.overallUsage.totalRequests).toBe(5);

    const year = await usage(owner.token, range(ago(365 * DAY), now));
    expectReport(
      year.body,
      expected((r) => r.occurredAt >= ago(365 * DAY)),
    );
    expect(year.body.overallUsage.totalRequests).toBe(7);

    const day = ago(2 * DAY)
      .toISOString()
      .slice(0, 10);
    const bare = await usage(owner.token, { startDate: day, endDate: day });
    expect(bare.status).toBe(200);
    const want = expected((r) => r.occurredAt.toISOString().slice(0, 10) === day);
    expect(want.rows.length).toBeGreaterThan(0);
    expectReport(bare.body, want);
  });

  it('includes both ends of the range', async () => {
    const one = recorded.find((r) => r.key === 'beta' && r.promptTokens === 55)!;
    const res = await usage(owner.token, range(one.occurredAt, one.occurredAt));
    expect(res.status).toBe(200);
    expectReport(
      res.body,
      expected((r) => r.requestId === one.requestId),
    );
    const before = await usage(owner.token, range(new Date(one.occurredAt.getTime() - 60_000), new Date(one.occurredAt.getTime() - 1)));
    expect(before.body.overallUsage.totalRequests).toBe(0);
  });

  it("filters by chatbot: the owner's own, a deleted one's records, and nothing for another owner's or an unknown id", async () => {
    const alpha = await usage(owner.token, range(ago(30 * DAY), now, { chatbotId: chatbots.alpha._id }));
    expectReport(
      alpha.body,
      expected((r) => r.key === 'alpha' && r.occurredAt >= ago(30 * DAY)),
    );
    expect(alpha.body.overallUsage.totalRequests).toBe(3);

    const gamma = await usage(owner.token, range(ago(30 * DAY), now, { chatbotId: chatbots.gamma._id }));
    expectReport(
      gamma.body,
      expected((r) => r.key === 'gamma'),
    );
    expect(gamma.body.recentRequests[0].chatbot).toBeNull();

    for (const chatbotId of [chatbots.others._id, randomUUID(), 'not-a-chatbot']) {
      const res = await usage(owner.token, range(ago(30 * DAY), now, { chatbotId }));
      expect(res.status, chatbotId).toBe(200);
      expect(res.body.overallUsage).toEqual({
        totalCost: 0,
        totalPromptCost: 0,
        totalCompletionCost: 0,
        totalTokens: 0,
        totalPromptTokens: 0,
        totalCompletionTokens: 0,
        totalRequests: 0,
      });
      expect(res.body.recentRequests).toEqual([]);
      expect(res.body.dailyUsage).toEqual([]);
      expect(res.body.usageByChatbot).toEqual([]);
    }
  });

  it('shows each owner only their own usage', async () => {
    const res = await usage(other.token, range(ago(30 * DAY), now));
    expect(res.body.overallUsage.totalRequests).toBe(1);
    expect(res.body.recentRequests).toEqual([
      expect.objectContaining({ chatbot: { _id: chatbots.others._id, name: 'Not Yours' }, promptTokens: 999, completionTokens: 999 }),
    ]);
  });

  it.each([
    [{}, BAD_DATES_MESSAGE],
    [{ startDate: '2025-01-01' }, BAD_DATES_MESSAGE],
    [{ endDate: '2025-01-01' }, BAD_DATES_MESSAGE],
    [{ startDate: 'last week', endDate: '2025-01-01' }, BAD_DATES_MESSAGE],
    [{ startDate: '2025-02-30', endDate: '2025-03-01' }, BAD_DATES_MESSAGE],
    [{ startDate: '2025-01-01T25:00:00Z', endDate: '2025-03-01' }, BAD_DATES_MESSAGE],
    [{ startDate: '1735689600000', endDate: '2025-03-01' }, BAD_DATES_MESSAGE],
    [{ startDate: '2025-03-02', endDate: '2025-03-01' }, REVERSED_RANGE_MESSAGE],
    [{ startDate: '2025-03-01T12:00:00Z', endDate: '2025-03-01T11:59:59Z' }, REVERSED_RANGE_MESSAGE],
  ])('answers %j with 400 and a clear message', async (params, message) => {
    const res = await usage(owner.token, params as Record<string, string>);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers a repeated date parameter and an absurd range with 400', async () => {
    const repeated = await call(`/api/user/usage?startDate=2025-01-01&startDate=2025-01-02&endDate=2025-02-01`, { token: owner.token });
    expect(repeated.status).toBe(400);
    expect(repeated.body).toEqual({ message: BAD_DATES_MESSAGE });
    for (const [startDate, endDate] of [
      ['2020-01-01T00:00:00Z', '2023-01-01T00:00:00Z'],
      ['1900-01-01T00:00:00Z', '2100-01-01T00:00:00Z'],
      ['0001-01-01', '9999-12-31'],
    ]) {
      const absurd = await usage(owner.token, { startDate, endDate });
      expect(absurd.status, `${startDate}..${endDate}`).toBe(400);
      expect(absurd.body).toEqual({ message: expect.stringMatching(/\S/) });
    }
  });

  it('answers 401 without a valid token, whatever the dates', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const res = await usage(token, range(ago(DAY), now));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: expect.stringMatching(/\S/) });
      expect((await usage(token, {})).status).toBe(401);
    }
  });
});

describe('GraphQL usage', () => {
  const QUERY = `query Usage($startDate: DateTime!, $endDate: DateTime!, $chatbotId: ID) {
    usage(startDate: $startDate, endDate: $endDate, chatbotId: $chatbotId) {
      subscription currentCreditBalance recentRequestsLimit
      overallUsage { totalCost totalPromptCost totalCompletionCost totalTokens totalPromptTokens totalCompletionTokens totalRequests }
      recentRequests { requestId timestamp chatbot { _id name } model { displayName } promptTokens completionTokens totalTokens totalCost }
      dailyUsage { date totalCost totalTokens requests }
      usageByChatbot { chatbotId name totalCost requests }
    }
  }`;

  it('answers the same report with exact decimal strings', async () => {
    const res = await gql(stack.url, QUERY, range(ago(30 * DAY), now), owner.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.headers.get('cache-control')).toBe('no-store');
    const report = res.body.data.usage;
    const want = expected((r) => r.occurredAt >= ago(30 * DAY));
    expect(units(report.overallUsage.totalCost)).toBe(want.units.total);
    expect(units(report.overallUsage.totalPromptCost)).toBe(want.units.prompt);
    expect(units(report.overallUsage.totalCompletionCost)).toBe(want.units.completion);
    expect(report.overallUsage.totalRequests).toBe(6);
    expect(report.subscription).toBe('pro');
    const rest = (await usage(owner.token, range(ago(30 * DAY), now))).body;
    // The same records in the same order; REST's numbers are GraphQL's decimals read by Number().
    expect(report.recentRequests.map((r: { requestId: string }) => r.requestId)).toEqual(
      [...want.rows].sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime()).map((r) => r.requestId),
    );
    expect(
      report.recentRequests.map(({ requestId: _id, totalCost, ...r }: { requestId: string; totalCost: string }) => ({
        ...r,
        totalCost: Number(totalCost),
      })),
    ).toEqual(rest.recentRequests);
    expect(Number(report.currentCreditBalance)).toBe(rest.currentCreditBalance);
    const byRequest = new Map(want.rows.map((r) => [r.requestId, costUnits(r).prompt + costUnits(r).completion]));
    for (const r of report.recentRequests) expect(units(r.totalCost)).toBe(byRequest.get(r.requestId));
    expect(report.usageByChatbot.find((c: { chatbotId: string }) => c.chatbotId === chatbots.gamma._id).name).toBeNull();
  });

  it('refuses bad dates with BAD_USER_INPUT and a signed-out caller with UNAUTHENTICATED', async () => {
    const bad = await gql(stack.url, QUERY, { startDate: 'soon', endDate: now.toISOString() }, owner.token);
    expect(bad.body.errors[0]).toMatchObject({ message: BAD_DATES_MESSAGE, extensions: { code: 'BAD_USER_INPUT' } });
    const anonymous = await gql(stack.url, QUERY, range(ago(DAY), now));
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
