import { lazy, Suspense, useState, type ReactNode } from 'react';
import type { AnalyticsFieldsFragment } from '../../gql/graphql';
import { cn } from '../../lib/cn';
import { Card, CardBody, CardHeader } from '../ui/card';
import { ACTIVITY_METRICS, type ActivityMetric } from './activity-metrics';

// recharts is large, so the chart arrives in its own chunk when a page first draws it.
const ActivityChart = lazy(() => import('./activity-chart'));

export function ChartPlaceholder({ height }: { height: number }) {
  return <div className="animate-pulse rounded-xl bg-gray-50" style={{ height }} aria-hidden="true" />;
}

/** A switch between the chart's figures: a row of toggle buttons, the shown one pressed. */
function MetricPicker({ value, onChange }: { value: ActivityMetric; onChange: (metric: ActivityMetric) => void }) {
  return (
    <div role="group" aria-label="Figure shown" className="inline-flex rounded-lg bg-gray-100 p-0.5">
      {ACTIVITY_METRICS.map((metric) => (
        <button
          key={metric.value}
          type="button"
          aria-pressed={value === metric.value}
          onClick={() => onChange(metric.value)}
          className={cn(
            'rounded-md px-2.5 py-1 text-xs font-medium whitespace-nowrap transition-colors',
            value === metric.value ? 'bg-white text-gray-900 shadow-sm' : 'text-gray-600 hover:text-gray-900',
          )}
        >
          {metric.label}
        </button>
      ))}
    </div>
  );
}

interface ActivityCardProps {
  days: AnalyticsFieldsFragment['days'];
  title?: string;
  description?: string;
  height?: number;
  className?: string;
  /** Shown above the chart (the dashboard puts its totals there). */
  children?: ReactNode;
}

/** Conversations, messages or unique visitors per UTC day, the owner choosing which. */
export function ActivityCard({
  days,
  title = 'Activity',
  description = 'Per day; days are UTC calendar days.',
  height = 260,
  className,
  children,
}: ActivityCardProps) {
  const [metric, setMetric] = useState<ActivityMetric>('conversations');
  return (
    <Card className={className}>
      <CardHeader title={title} description={description} action={<MetricPicker value={metric} onChange={setMetric} />} />
      <CardBody>
        {children}
        <Suspense fallback={<ChartPlaceholder height={height} />}>
          <ActivityChart days={days} metric={metric} height={height} />
        </Suspense>
      </CardBody>
    </Card>
  );
}
