import { describe, expect, it } from 'vitest';
import { dailyCostSeries } from '../daily-series';

const day = (date: string, totalCost: string, requests = 1, totalTokens = 100) => ({
  __typename: 'UsageDay' as const,
  date,
  totalCost,
  requests,
  totalTokens,
});

describe('dailyCostSeries', () => {
  it('has every UTC day of the range, zero where the server reported nothing', () => {
    const points = dailyCostSeries(
      [day('2025-03-02', '0.00036', 2, 3000), day('2025-03-04', '0.1')],
      new Date('2025-03-01T15:00:00Z'),
      new Date('2025-03-05T01:00:00Z'),
    );
    expect(points).toEqual([
      { date: '2025-03-01', cost: 0, requests: 0, tokens: 0 },
      { date: '2025-03-02', cost: 0.00036, requests: 2, tokens: 3000 },
      { date: '2025-03-03', cost: 0, requests: 0, tokens: 0 },
      { date: '2025-03-04', cost: 0.1, requests: 1, tokens: 100 },
      { date: '2025-03-05', cost: 0, requests: 0, tokens: 0 },
    ]);
  });

  it('groups by UTC day, not by the browser time zone', () => {
    const points = dailyCostSeries([], new Date('2025-03-01T23:30:00Z'), new Date('2025-03-02T00:30:00Z'));
    expect(points.map((p) => p.date)).toEqual(['2025-03-01', '2025-03-02']);
  });

  it('covers a leap year and month ends', () => {
    const points = dailyCostSeries([], new Date('2024-01-01T12:00:00Z'), new Date('2024-12-31T12:00:00Z'));
    expect(points).toHaveLength(366);
    expect(points.map((p) => p.date)).toContain('2024-02-29');
    expect(points.at(-1)?.date).toBe('2024-12-31');
  });

  it('ignores days outside the range', () => {
    const points = dailyCostSeries([day('2025-02-01', '9')], new Date('2025-03-01T00:00:00Z'), new Date('2025-03-01T10:00:00Z'));
    expect(points).toEqual([{ date: '2025-03-01', cost: 0, requests: 0, tokens: 0 }]);
  });

  it('is bounded for an absurd range and empty for an inverted one', () => {
    expect(dailyCostSeries([], new Date('2000-01-01Z'), new Date('2025-01-01Z')).length).toBeLessThanOrEqual(368);
    expect(dailyCostSeries([], new Date('2025-03-02Z'), new Date('2025-03-01Z'))).toEqual([]);
  });
});
