// The cost-per-day chart. Loaded on demand (React.lazy from the usage page), so recharts stays out
// of every other page's download.
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis, type TooltipContentProps } from 'recharts';
import { formatCount, formatDollars } from '../../../lib/format';
import { costAxis, costAxisLabel } from '../cost-axis';
import type { DailyCostPoint } from '../daily-series';

const dayLabel = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const fullDayLabel = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' });

function utcDate(day: string): Date {
  return new Date(`${day}T00:00:00Z`);
}

function ChartTooltip({ active, payload }: TooltipContentProps) {
  const point = active ? (payload?.[0]?.payload as DailyCostPoint | undefined) : undefined;
  if (!point) return null;
  return (
    <div className="rounded-lg border border-gray-200 bg-white px-3 py-2 text-sm shadow-lg">
      <p className="font-medium text-gray-900">{fullDayLabel.format(utcDate(point.date))}</p>
      <p className="mt-1 text-gray-700 tabular-nums">{formatDollars(point.cost, 5)}</p>
      <p className="text-xs text-gray-500 tabular-nums">
        {formatCount(point.requests)} {point.requests === 1 ? 'request' : 'requests'} · {formatCount(point.tokens)} tokens
      </p>
    </div>
  );
}

export default function DailyCostChart({ points }: { points: DailyCostPoint[] }) {
  const max = points.reduce((highest, point) => Math.max(highest, point.cost), 0);
  const axis = costAxis(max);
  const widestLabel = costAxisLabel(axis.ticks[axis.ticks.length - 1], axis.decimals);
  const busiest = points.find((point) => point.cost === max);
  return (
    // At least 260px tall, and as tall as the card beside it (the Cost Breakdown) when that is taller.
    <figure className="relative m-0 min-h-[260px] flex-1">
      <figcaption className="sr-only">
        Cost per day (UTC) over {points.length} days
        {busiest && max > 0 ? `; highest ${formatDollars(max, 5)} on ${fullDayLabel.format(utcDate(busiest.date))}` : ''}.
      </figcaption>
      <BarChart
        responsive
        data={points}
        style={{ position: 'absolute', inset: 0, width: '100%', height: '100%' }}
        margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
      >
        <CartesianGrid vertical={false} stroke="var(--color-gray-100)" />
        <XAxis
          dataKey="date"
          tickFormatter={(day: string) => dayLabel.format(utcDate(day))}
          tick={{ fontSize: 12, fill: 'var(--color-gray-500)' }}
          tickLine={false}
          axisLine={{ stroke: 'var(--color-gray-200)' }}
          minTickGap={24}
        />
        <YAxis
          // Every tick: there are at most nine, and a hidden one could leave two labels that look alike.
          ticks={axis.ticks}
          interval={0}
          domain={[0, axis.ticks[axis.ticks.length - 1]]}
          tickFormatter={(value: number) => costAxisLabel(value, axis.decimals)}
          tick={{ fontSize: 12, fill: 'var(--color-gray-500)' }}
          tickLine={false}
          axisLine={false}
          // About 7px a character at 12px, and room before the bars.
          width={Math.max(56, widestLabel.length * 7 + 16)}
        />
        <Tooltip content={ChartTooltip} cursor={{ fill: 'var(--color-brand-50)' }} />
        {/* Daily totals are separate amounts, so bars rather than a line that suggests a flow between days. */}
        <Bar dataKey="cost" name="Cost" fill="var(--color-brand-500)" radius={[3, 3, 0, 0]} maxBarSize={28} isAnimationActive={false} />
      </BarChart>
    </figure>
  );
}
