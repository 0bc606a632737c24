import { describe, expect, it } from 'vitest';
import { endOfMonth, startOfMonth } from '../calendar-month';

describe('calendar month', () => {
  it('starts on the first day at 00:00 local time', () => {
    const start = startOfMonth(new Date(2025, 2, 17, 15, 30));
    expect([start.getFullYear(), start.getMonth(), start.getDate(), start.getHours(), start.getMinutes()]).toEqual([2025, 2, 1, 0, 0]);
  });

  it('ends at the last instant of the last day, whatever the month length', () => {
    for (const [month, lastDay] of [
      [0, 31],
      [1, 28],
      [3, 30],
      [11, 31],
    ] as const) {
      const end = endOfMonth(new Date(2025, month, 10));
      expect([end.getMonth(), end.getDate(), end.getHours(), end.getMinutes(), end.getSeconds(), end.getMilliseconds()]).toEqual([
        month,
        lastDay,
        23,
        59,
        59,
        999,
      ]);
    }
    expect(endOfMonth(new Date(2024, 1, 1)).getDate()).toBe(29);
  });

  it('is the same month for the first and last instant of a month', () => {
    const first = new Date(2025, 4, 1, 0, 0, 0, 0);
    const last = new Date(2025, 4, 31, 23, 59, 59, 999);
    expect(startOfMonth(last).getTime()).toBe(first.getTime());
    expect(endOfMonth(first).getTime()).toBe(last.getTime());
  });
});
