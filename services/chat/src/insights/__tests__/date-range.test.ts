// The analytics range: whole UTC days, both ends included, the last 30 days by default, and the
// product's three messages for a bad range.
import { Code, ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { BAD_DATE, END_BEFORE_START, RANGE_TOO_LONG, eachDay, isoDay, parseDayRange } from '../date-range.ts';

const now = new Date('2026-11-25T23:59:59.999Z');

function refusal(input: { startDate?: string; endDate?: string }): { code: Code; message: string } {
  try {
    parseDayRange(input, now);
  } catch (err) {
    if (err instanceof ConnectError) return { code: err.code, message: err.rawMessage };
    throw err;
  }
  throw new Error('accepted');
}

describe('parseDayRange', () => {
  it('defaults to the last 30 days ending today (UTC), both ends included', () => {
    const range = parseDayRange({}, now);
    expect([isoDay(range.start), isoDay(range.end), range.days]).toEqual(['2026-10-27', '2026-11-25', 30]);
    expect(eachDay(range).map(isoDay).slice(0, 2)).toEqual(['2026-10-27', '2026-10-28']);
    expect(eachDay(range)).toHaveLength(30);
  });

  it('takes the days given; an empty start is the 30 days ending at the end', () => {
    expect(parseDayRange({ startDate: '2026-02-01', endDate: '2026-02-01' }, now).days).toBe(1);
    const range = parseDayRange({ startDate: '', endDate: '2026-03-30' }, now);
    expect([isoDay(range.start), range.days]).toEqual(['2026-03-01', 30]);
    expect(parseDayRange({ startDate: '2025-10-22', endDate: '2026-11-25' }, now).days).toBe(400);
  });

  it('answers a bad date, a reversed range and a range over 400 days with their messages', () => {
    for (const startDate of ['2026-2-01', '2026-02-30', 'yesterday', '2026-13-01', '26-01-01'])
      expect(refusal({ startDate, endDate: '2026-03-01' })).toEqual({ code: Code.InvalidArgument, message: BAD_DATE });
    expect(refusal({ startDate: '2026-03-02', endDate: '2026-03-01' })).toEqual({ code: Code.InvalidArgument, message: END_BEFORE_START });
    expect(refusal({ startDate: '2025-10-21', endDate: '2026-11-25' })).toEqual({ code: Code.InvalidArgument, message: RANGE_TOO_LONG });
    expect([BAD_DATE, RANGE_TOO_LONG, END_BEFORE_START]).toEqual([
      'Dates must be YYYY-MM-DD',
      'The range can be at most 400 days',
      'The end date must not be before the start date',
    ]);
  });
});
