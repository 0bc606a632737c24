import type { UsageReportQuery } from '../../gql/graphql';

type UsageDay = UsageReportQuery['usage']['dailyUsage'][number];

/** One day of the cost chart. Costs are numbers here only because the chart draws them. */
export interface DailyCostPoint {
  /** YYYY-MM-DD, a UTC day as the server groups them. */
  date: string;
  cost: number;
  requests: number;
  tokens: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
// A year plus a leap day and both partial end days; more means bad input, not a longer chart.
const MAX_DAYS = 368;

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * Every UTC day from `start` to `end`, with the server's figures where it reported some and zero on
 * the days without usage, so the chart's time axis is even.
 */
export function dailyCostSeries(days: ReadonlyArray<UsageDay>, start: Date, end: Date): DailyCostPoint[] {
  const byDate = new Map(days.map((day) => [day.date, day]));
  const points: DailyCostPoint[] = [];
  const first = Date.parse(`${utcDay(start)}T00:00:00Z`);
  const last = Date.parse(`${utcDay(end)}T00:00:00Z`);
  for (let time = first; time <= last && points.length < MAX_DAYS; time += DAY_MS) {
    const date = utcDay(new Date(time));
    const day = byDate.get(date);
    points.push({
      date,
      cost: day ? Number(day.totalCost) : 0,
      requests: day?.requests ?? 0,
      tokens: day?.totalTokens ?? 0,
    });
  }
  return points;
}
