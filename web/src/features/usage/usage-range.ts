// The usage page's time ranges (docs/product.md, Usage): now minus 7 days, 1 month or 1 year, up to now.

export type UsageRange = 'week' | 'month' | 'year';

export const DEFAULT_USAGE_RANGE: UsageRange = 'month';

export const USAGE_RANGES: ReadonlyArray<{ value: UsageRange; label: string }> = [
  { value: 'week', label: 'Last 7 days' },
  { value: 'month', label: 'Last 30 days' },
  { value: 'year', label: 'Last year' },
];

export function isUsageRange(value: string): value is UsageRange {
  return USAGE_RANGES.some((range) => range.value === value);
}

/** `date` moved back by whole months, on the same day or, when that month is shorter, its last day. */
function monthsBefore(date: Date, months: number): Date {
  const result = new Date(date);
  result.setDate(1);
  result.setMonth(result.getMonth() - months);
  const lastDay = new Date(result.getFullYear(), result.getMonth() + 1, 0).getDate();
  result.setDate(Math.min(date.getDate(), lastDay));
  return result;
}

/** Where `range` starts when it ends at `now` (local calendar, so a daylight-saving change is no hour off). */
export function usageRangeStart(range: UsageRange, now: Date): Date {
  switch (range) {
    case 'week': {
      const start = new Date(now);
      start.setDate(start.getDate() - 7);
      return start;
    }
    case 'month':
      return monthsBefore(now, 1);
    case 'year':
      return monthsBefore(now, 12);
  }
}
