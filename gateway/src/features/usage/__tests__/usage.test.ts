// The usage view's edges: ISO dates read strictly (UTC, whole days for bare dates), ranges, billing's
// report mapped with current chatbot names, and exact decimals turned into JSON numbers unrounded.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { GetUsageReportResponseSchema, Plan } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ConnectError } from '@parley/common/rpc-errors.ts';
import {
  BAD_DATES_MESSAGE,
  money,
  parseIsoDate,
  parseUsageQuery,
  restUsageReport,
  REVERSED_RANGE_MESSAGE,
  usageReportView,
} from '../usage.ts';

const refused = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectError);
    return (err as ConnectError).rawMessage;
  }
  throw new Error('not refused');
};

describe('parseIsoDate', () => {
  it('reads date-times with Z, an offset, or none (UTC), to the millisecond', () => {
    expect(parseIsoDate('2025-03-04T05:06:07.891Z', 'start').toISOString()).toBe('2025-03-04T05:06:07.891Z');
    expect(parseIsoDate('2025-03-04T05:06:07Z', 'end').toISOString()).toBe('2025-03-04T05:06:07.000Z');
    expect(parseIsoDate('2025-03-04T05:06', 'start').toISOString()).toBe('2025-03-04T05:06:00.000Z');
    expect(parseIsoDate('2025-03-04T05:06:07+02:00', 'start').toISOString()).toBe('2025-03-04T03:06:07.000Z');
    expect(parseIsoDate('2025-03-04T05:06:07-0530', 'start').toISOString()).toBe('2025-03-04T10:36:07.000Z');
    expect(parseIsoDate('2025-03-04T05:06:07.123456789Z', 'start').toISOString()).toBe('2025-03-04T05:06:07.123Z');
  });

  it('reads a bare date as the start of its UTC day, or its last millisecond when it ends a range', () => {
    expect(parseIsoDate('2024-02-29', 'start').toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseIsoDate('2024-02-29', 'end').toISOString()).toBe('2024-02-29T23:59:59.999Z');
  });

  it.each([
    '',
    'yesterday',
    '2025-13-01',
    '2025-02-29',
    '2025-02-30',
    '2025-04-31',
    '2025-01-01T24:00Z',
    '2025-01-01T10:60Z',
    '2025-01-01T10:00:61Z',
    '2025-1-1',
    '1714000000000',
    '2025-01-01T10:00+25:00',
    '2025-01-01 10:00',
  ])('refuses %j', (raw) => {
    expect(refused(() => parseIsoDate(raw, 'start'))).toBe(BAD_DATES_MESSAGE);
  });

  it('refuses what is not a string (missing, repeated query parameters)', () => {
    expect(refused(() => parseIsoDate(undefined, 'start'))).toBe(BAD_DATES_MESSAGE);
    expect(refused(() => parseIsoDate(['2025-01-01', '2025-01-02'], 'start'))).toBe(BAD_DATES_MESSAGE);
  });
});

describe('parseUsageQuery', () => {
  it('accepts a range of one instant and a chatbot id; an empty chatbot id means all', () => {
    const q = parseUsageQuery({ startDate: '2025-01-01T00:00:00Z', endDate: '2025-01-01T00:00:00Z', chatbotId: 'abc' });
    expect(q).toEqual({ startDate: new Date('2025-01-01T00:00:00Z'), endDate: new Date('2025-01-01T00:00:00Z'), chatbotId: 'abc' });
    expect(parseUsageQuery({ startDate: '2025-01-01', endDate: '2025-01-01', chatbotId: '' }).chatbotId).toBeUndefined();
  });

  it('refuses a start after the end, and a chatbot id that is not a string', () => {
    expect(refused(() => parseUsageQuery({ startDate: '2025-01-02', endDate: '2025-01-01T23:59:59Z' }))).toBe(REVERSED_RANGE_MESSAGE);
    expect(refused(() => parseUsageQuery({ startDate: '2025-01-01', endDate: '2025-01-02', chatbotId: ['a', 'b'] }))).toBe(
      'chatbotId must be a string',
    );
  });
});

describe('money', () => {
  it('is the decimal text read as a number, with no rounding on the way', () => {
    expect(money('0.0000015')).toBe(0.0000015);
    expect(money('0.0000015000')).toBe(0.0000015);
    expect(money('2')).toBe(2);
    expect(money('-0.0265')).toBe(-0.0265);
    expect(money('123.4567890123')).toBe(123.4567890123);
  });

  it('refuses what billing should never send', () => {
    expect(() => money('')).toThrow(ConnectError);
    expect(() => money('abc')).toThrow(ConnectError);
  });
});

describe('usageReportView and restUsageReport', () => {
  const at = new Date('2025-05-06T07:08:09.010Z');
  const report = create(GetUsageReportResponseSchema, {
    account: { ownerId: 'u1', plan: Plan.PRO, creditBalance: '1.9999985', reservedCredit: '0' },
    totals: {
      totalCost: '0.0000030',
      totalPromptCost: '0.0000015',
      totalCompletionCost: '0.0000015',
      totalTokens: 13n,
      totalPromptTokens: 10n,
      totalCompletionTokens: 3n,
      requestCount: 2n,
    },
    records: [
      {
        requestId: 'r2',
        occurredAt: timestampFromDate(at),
        chatbotId: 'live',
        chatbotName: 'Old name',
        model: 'gpt-4o-mini',
        modelDisplayName: 'GPT-4o mini',
        promptTokens: 5n,
        completionTokens: 2n,
        totalTokens: 7n,
        promptCost: '0.00000075',
        completionCost: '0.0000012',
        totalCost: '0.00000195',
      },
      {
        requestId: 'r1',
        occurredAt: timestampFromDate(at),
        chatbotId: 'gone',
        chatbotName: 'Deleted',
        model: 'gpt-4o-mini',
        totalCost: '0.0000010',
      },
    ],
    days: [{ date: '2025-05-06', totalCost: '0.0000030', totalTokens: 13n, requestCount: 2n }],
    chatbots: [
      { chatbotId: 'live', chatbotName: 'Old name', totalCost: '0.00000195', requestCount: 1n },
      { chatbotId: 'gone', chatbotName: 'Deleted', totalCost: '0.0000010', requestCount: 1n },
    ],
    limit: 100,
  });
  const view = usageReportView(report, new Map([['live', 'Current name']]));

  it('names each chatbot by its current name, and a deleted one null; the model by its display name or id', () => {
    expect(view.recentRequests.map((r) => r.chatbot)).toEqual([{ _id: 'live', name: 'Current name' }, null]);
    expect(view.recentRequests.map((r) => r.model)).toEqual([{ displayName: 'GPT-4o mini' }, { displayName: 'gpt-4o-mini' }]);
    expect(view.usageByChatbot.map((c) => c.name)).toEqual(['Current name', null]);
    expect(view.subscription).toBe('pro');
    expect(view.recentRequests[0]!.timestamp).toBe('2025-05-06T07:08:09.010Z');
  });

  it('answers REST with exactly the usage response keys plus the additive ones, money as numbers', () => {
    const rest = restUsageReport(view);
    expect(Object.keys(rest).sort()).toEqual(
      [
        'subscription',
        'currentCreditBalance',
        'overallUsage',
        'recentRequests',
        'recentRequestsLimit',
        'dailyUsage',
        'usageByChatbot',
      ].sort(),
    );
    expect(rest.overallUsage).toEqual({
      totalCost: 0.000003,
      totalPromptCost: 0.0000015,
      totalCompletionCost: 0.0000015,
      totalTokens: 13,
      totalPromptTokens: 10,
      totalCompletionTokens: 3,
      totalRequests: 2,
    });
    expect(rest.currentCreditBalance).toBe(1.9999985);
    expect(rest.recentRequests[0]).toEqual({
      timestamp: '2025-05-06T07:08:09.010Z',
      chatbot: { _id: 'live', name: 'Current name' },
      model: { displayName: 'GPT-4o mini' },
      promptTokens: 5,
      completionTokens: 2,
      totalTokens: 7,
      totalCost: 0.00000195,
    });
    expect(rest.dailyUsage).toEqual([{ date: '2025-05-06', totalCost: 0.000003, totalTokens: 13, requests: 2 }]);
    expect(rest.usageByChatbot).toEqual([
      { chatbotId: 'live', name: 'Current name', totalCost: 0.00000195, requests: 1 },
      { chatbotId: 'gone', name: null, totalCost: 0.000001, requests: 1 },
    ]);
    expect(rest.recentRequestsLimit).toBe(100);
  });

  it('refuses a report without account or totals (a contract violation)', () => {
    expect(() => usageReportView(create(GetUsageReportResponseSchema, {}), new Map())).toThrow(/incomplete usage report/);
  });
});
