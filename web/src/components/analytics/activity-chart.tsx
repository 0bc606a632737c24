// The daily activity chart. Loaded on demand (React.lazy), so recharts stays out of the pages that
// do not draw charts.
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis, type TooltipContentProps } from 'recharts';
import type { AnalyticsFieldsFragment } from '../../gql/graphql';
import { formatDay } from '../../lib/analytics/analytics-format';
import { formatCount } from '../../lib/format';
import { ACTIVITY_METRICS, type ActivityMetric } from './activity-metrics';

type Day = AnalyticsFieldsFragment['days'][number];

function ChartTooltip({ active, payload, metric }: TooltipContentProps & { metric: ActivityMetric }) {
  const day = active ? (payload?.[0]?.payload as Day | undefined) : undefined;
  if (!day) return null;
  return (
    <div className="rounded-lg border border-gray-200 bg-white px-3 py-2 text-sm shadow-lg">
      <p className="font-medium text-gray-900">{formatDay(day.date, true)}</p>
      {ACTIVITY_METRICS.map((m) => (
        <p
          key={m.value}
          className={m.value === metric ? 'mt-1 font-medium text-gray-900 tabular-nums' : 'text-xs text-gray-500 tabular-nums'}
        >
          {m.label}: {formatCount(day[m.value])}
        </p>
      ))}
    </div>
  );
}

interface ActivityChartProps {
  days: Day[];
  metric: ActivityMetric;
  /** The chart's height in pixels. */
  height?: number;
}

export default function ActivityChart({ days, metric, height = 260 }: ActivityChartProps) {
  const label = ACTIVITY_METRICS.find((m) => m.value === metric)?.label ?? metric;
  const total = days.reduce((sum, day) => sum + day[metric], 0);
  const busiest = days.reduce<Day | undefined>((best, day) => (!best || day[metric] > best[metric] ? day : best), undefined);
  return (
    <figure className="relative m-0" style={{ height }}>
      <figcaption className="sr-only">
        {label} per day (UTC) over {days.length} days, {formatCount(total)} in all
        {busiest && busiest[metric] > 0 ? `; most on ${formatDay(busiest.date, true)} (${formatCount(busiest[metric])})` : ''}.
      </figcaption>
      <BarChart
        responsive
        data={days}
        style={{ position: 'absolute', inset: 0, width: '100%', height: '100%' }}
        margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
      >
        <CartesianGrid vertical={false} stroke="var(--color-gray-100)" />
        <XAxis
          dataKey="date"
          tickFormatter={(day: string) => formatDay(day)}
          tick={{ fontSize: 12, fill: 'var(--color-gray-500)' }}
          tickLine={false}
          axisLine={{ stroke: 'var(--color-gray-200)' }}
          minTickGap={24}
        />
        <YAxis
          tickFormatter={(value: number) => formatCount(value)}
          tick={{ fontSize: 12, fill: 'var(--color-gray-500)' }}
          tickLine={false}
          axisLine={false}
          width={44}
          allowDecimals={false}
        />
        <Tooltip content={(props) => <ChartTooltip {...props} metric={metric} />} cursor={{ fill: 'var(--color-brand-50)' }} />
        {/* Daily counts are separate amounts, so bars, as on the usage page. */}
        <Bar dataKey={metric} name={label} fill="var(--color-brand-500)" radius={[3, 3, 0, 0]} maxBarSize={28} isAnimationActive={false} />
      </BarChart>
    </figure>
  );
}
