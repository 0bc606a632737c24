// The analytics ranges the owner picks from, as the UTC calendar days (inclusive) the server counts
// in. Shared by the chatbot's Analytics tab and the dashboard's summary, so both mean the same days.

export type AnalyticsRange = '7d' | '30d' | '90d' | '12m';

export const DEFAULT_ANALYTICS_RANGE: AnalyticsRange = '30d';

export const ANALYTICS_RANGES: ReadonlyArray<{ value: AnalyticsRange; label: string }> = [
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
  { value: '90d', label: 'Last 90 days' },
  { value: '12m', label: 'Last 12 months' },
];

export function isAnalyticsRange(value: string): value is AnalyticsRange {
  return ANALYTICS_RANGES.some((range) => range.value === value);
}

export interface AnalyticsDates {
  /** YYYY-MM-DD, UTC */
  startDate: string;
  /** YYYY-MM-DD, UTC, today */
  endDate: string;
}

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * The days of `range` ending today (UTC): the last 7, 30 or 90 days including today, or 12 months
 * back to the day after today's date a year ago (365 or 366 days, within the server's 400).
 */
export function analyticsRangeDates(range: AnalyticsRange, now: Date): AnalyticsDates {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const day = now.getUTCDate();
  const start =
    range === '12m'
      ? new Date(Date.UTC(year - 1, month, day + 1))
      : new Date(Date.UTC(year, month, day - (Number.parseInt(range, 10) - 1)));
  return { startDate: isoDay(start), endDate: isoDay(now) };
}
