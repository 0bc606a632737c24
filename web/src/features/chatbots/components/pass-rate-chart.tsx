// The pass rate of a chatbot's runs over time. Loaded on demand (React.lazy), so recharts stays out
// of the pages that draw no chart, as the analytics charts are.
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { formatDateTime } from '../../../lib/format';

export interface PassRatePoint {
  id: string;
  createdAt: string;
  /** 0-100. */
  rate: number;
}

export default function PassRateChart({ points, height = 160 }: { points: PassRatePoint[]; height?: number }) {
  const last = points[points.length - 1];
  return (
    <figure className="relative m-0" style={{ height }}>
      <figcaption className="sr-only">
        Pass rate of the last {points.length} runs{last ? `; latest ${Math.round(last.rate)} %` : ''}.
      </figcaption>
      <LineChart
        responsive
        data={points}
        style={{ position: 'absolute', inset: 0, width: '100%', height: '100%' }}
        margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
      >
        <CartesianGrid vertical={false} stroke="var(--color-gray-100)" />
        <XAxis dataKey="createdAt" tickFormatter={() => ''} tickLine={false} axisLine={{ stroke: 'var(--color-gray-200)' }} />
        <YAxis
          domain={[0, 100]}
          tickFormatter={(v: number) => `${v} %`}
          tick={{ fontSize: 12, fill: 'var(--color-gray-500)' }}
          tickLine={false}
          axisLine={false}
          width={48}
        />
        <Tooltip
          formatter={(value) => [`${Math.round(Number(value))} %`, 'Pass rate']}
          labelFormatter={(label) => formatDateTime(String(label))}
        />
        <Line type="monotone" dataKey="rate" stroke="var(--color-brand-500)" strokeWidth={2} dot isAnimationActive={false} />
      </LineChart>
    </figure>
  );
}
