import { describe, expect, it } from 'vitest';
import { DEFAULT_USAGE_RANGE, isUsageRange, USAGE_RANGES, usageRangeStart } from '../usage-range';

function local(date: Date) {
  return [date.getFullYear(), date.getMonth() + 1, date.getDate(), date.getHours(), date.getMinutes()];
}

describe('usage ranges', () => {
  it('offers Last 7 days, Last 30 days (the default) and Last year', () => {
    expect(USAGE_RANGES.map((r) => [r.value, r.label])).toEqual([
      ['week', 'Last 7 days'],
      ['month', 'Last 30 days'],
      ['year', 'Last year'],
    ]);
    expect(DEFAULT_USAGE_RANGE).toBe('month');
    expect(isUsageRange('year')).toBe(true);
    expect(isUsageRange('decade')).toBe(false);
  });

  it('starts 7 days, 1 month or 1 year before now, at the same time of day', () => {
    const now = new Date(2025, 5, 15, 14, 30);
    expect(local(usageRangeStart('week', now))).toEqual([2025, 6, 8, 14, 30]);
    expect(local(usageRangeStart('month', now))).toEqual([2025, 5, 15, 14, 30]);
    expect(local(usageRangeStart('year', now))).toEqual([2024, 6, 15, 14, 30]);
  });

  it('crosses month and year boundaries', () => {
    const now = new Date(2025, 0, 3, 9, 0);
    expect(local(usageRangeStart('week', now))).toEqual([2024, 12, 27, 9, 0]);
    expect(local(usageRangeStart('month', now))).toEqual([2024, 12, 3, 9, 0]);
  });

  it('lands on the last day of a shorter month instead of overflowing into the next', () => {
    expect(local(usageRangeStart('month', new Date(2025, 2, 31, 12, 0)))).toEqual([2025, 2, 28, 12, 0]);
    expect(local(usageRangeStart('month', new Date(2024, 2, 31, 12, 0)))).toEqual([2024, 2, 29, 12, 0]);
    expect(local(usageRangeStart('year', new Date(2024, 1, 29, 12, 0)))).toEqual([2023, 2, 28, 12, 0]);
  });

  it('does not change the date it is given', () => {
    const now = new Date(2025, 5, 15);
    usageRangeStart('year', now);
    expect(local(now)).toEqual([2025, 6, 15, 0, 0]);
  });
});
