import { describe, expect, it } from 'vitest';
import { formatDuration, formatShare, hourLabel, positiveShare } from '../analytics-format';
import { analyticsRangeDates } from '../analytics-range';

describe('analyticsRangeDates', () => {
  const now = new Date('2024-03-01T23:30:00Z');
  it.each([
    ['7d', '2024-02-24'],
    ['30d', '2024-02-01'],
    ['90d', '2023-12-03'],
    ['12m', '2023-03-02'],
  ] as const)('%s ends today (UTC) and starts on %s, inclusive', (range, start) => {
    expect(analyticsRangeDates(range, now)).toEqual({ startDate: start, endDate: '2024-03-01' });
  });
});

describe('analytics formats', () => {
  it('reads shares, durations and hours', () => {
    expect([formatShare(0), formatShare(0.004), formatShare(0.7293), formatShare(1)]).toEqual(['0%', '<1%', '73%', '100%']);
    expect([
      formatDuration(0),
      formatDuration(850),
      formatDuration(1240),
      formatDuration(12_400),
      formatDuration(65_000),
      formatDuration(120_000),
    ]).toEqual(['—', '850 ms', '1.2 s', '12 s', '1 min 5 s', '2 min']);
    expect(hourLabel(9)).toBe('09:00');
    expect([positiveShare(0, 0), positiveShare(3, 1)]).toEqual([null, 0.75]);
  });
});
