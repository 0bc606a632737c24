// The owner's range of whole UTC days for analytics (and the export's optional range): YYYY-MM-DD
// strings, both ends included, the last 30 days when not given. One rule, one set of messages, so
// the gateway's REST and GraphQL answers read the same.
import { invalid } from '@parley/common/rpc-errors.ts';

export const DEFAULT_RANGE_DAYS = 30;
export const MAX_RANGE_DAYS = 400;

export const BAD_DATE = 'Dates must be YYYY-MM-DD';
export const RANGE_TOO_LONG = `The range can be at most ${MAX_RANGE_DAYS} days`;
export const END_BEFORE_START = 'The end date must not be before the start date';

export const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface DayRange {
  /** UTC midnight of the first day. */
  start: Date;
  /** UTC midnight of the last day (included). */
  end: Date;
  /** How many days, both ends included. */
  days: number;
}

/** YYYY-MM-DD of a UTC day. */
export const isoDay = (day: Date) => day.toISOString().slice(0, 10);

/** The UTC midnight of a YYYY-MM-DD day; INVALID_ARGUMENT for anything else (2026-02-30 included). */
export function parseDay(raw: string): Date {
  const match = DATE.exec(raw.trim());
  if (!match) throw invalid(BAD_DATE);
  const [, y, m, d] = match.map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d || y < 1970) throw invalid(BAD_DATE);
  return day;
}

/**
 * The range asked for: an empty end is today (UTC), an empty start the DEFAULT_RANGE_DAYS ending at
 * the end. Dates are checked before the order, and the order before the length.
 */
export function parseDayRange(input: { startDate?: string; endDate?: string }, now = new Date()): DayRange {
  const end = input.endDate?.trim() ? parseDay(input.endDate) : new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
  const start = input.startDate?.trim() ? parseDay(input.startDate) : new Date(end.getTime() - (DEFAULT_RANGE_DAYS - 1) * DAY_MS);
  if (end < start) throw invalid(END_BEFORE_START);
  const days = Math.round((end.getTime() - start.getTime()) / DAY_MS) + 1;
  if (days > MAX_RANGE_DAYS) throw invalid(RANGE_TOO_LONG);
  return { start, end, days };
}

/** Every day of the range, oldest first. */
export function eachDay(range: DayRange): Date[] {
  return Array.from({ length: range.days }, (_, i) => new Date(range.start.getTime() + i * DAY_MS));
}
