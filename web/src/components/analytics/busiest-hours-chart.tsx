// Messages per hour of the day (UTC). Loaded on demand like the activity chart.
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis, type TooltipContentProps } from 'recharts';
import { hourLabel } from '../../lib/analytics/analytics-format';
import { formatCount } from '../../lib/format';

interface HourPoint {
  hour: number;
  messages: number;
}

function ChartTooltip({ active, payload }: TooltipContentProps) {
  const point = active ? (payload?.[0]?.payload as HourPoint | undefined) : undefined;
  if (!point) return null;
  return (
    <div className="rounded-lg border border-gray-200 bg-white px-3 py-2 text-sm shadow-lg">
      <p className="font-medium text-gray-900">
        {hourLabel(point.hour)}–{hourLabel((point.hour + 1) % 24)} UTC
      </p>
      <p className="mt-1 text-gray-700 tabular-nums">
        {formatCount(point.messages)} {point.messages === 1 ? 'message' : 'messages'}
      </p>
    </div>
  );
}

export default function BusiestHoursChart({ hours, height = 200 }: { hours: number[]; height?: number }) {
  const points: HourPoint[] = hours.map((messages, hour) => ({ hour, messages }));
  const peak = points.reduce<HourPoint | undefined>((best, point) => (!best || point.messages > best.messages ? point : best), undefined);
  return (
    <figure className="relative m-0" style={{ height }}>
      <figcaption className="sr-only">
        Messages per hour of the day (UTC)
        {peak && peak.messages > 0 ? `; busiest ${hourLabel(peak.hour)} with ${formatCount(peak.messages)}` : ''}.
      </figcaption>
      <BarChart
        responsive
        data={points}
        style={{ position: 'absolute', inset: 0, width: '100%', height: '100%' }}
        margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
      >
        <CartesianGrid vertical={false} stroke="var(--color-gray-100)" />
        <XAxis
          dataKey="hour"
          tickFormatter={(hour: number) => String(hour).padStart(2, '0')}
          tick={{ fontSize: 12, fill: 'var(--color-gray-500)' }}
          tickLine={false}
          axisLine={{ stroke: 'var(--color-gray-200)' }}
          interval={2}
        />
        <YAxis
          tickFormatter={(value: number) => formatCount(value)}
          tick={{ fontSize: 12, fill: 'var(--color-gray-500)' }}
          tickLine={false}
          axisLine={false}
          width={44}
          allowDecimals={false}
        />
        <Tooltip content={ChartTooltip} cursor={{ fill: 'var(--color-brand-50)' }} />
        <Bar
          dataKey="messages"
          name="Messages"
          fill="var(--color-brand-400)"
          radius={[3, 3, 0, 0]}
          maxBarSize={20}
          isAnimationActive={false}
        />
      </BarChart>
    </figure>
  );
}
