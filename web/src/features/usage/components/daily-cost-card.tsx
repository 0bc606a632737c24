import { lazy, Suspense } from 'react';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import type { DailyCostPoint } from '../daily-series';

// recharts is large and only this page draws charts, so it arrives in its own chunk on demand.
const DailyCostChart = lazy(() => import('./daily-cost-chart'));

function ChartPlaceholder() {
  return <div className="min-h-[260px] flex-1 animate-pulse rounded-xl bg-gray-50" aria-hidden="true" />;
}

export function DailyCostCard({ points }: { points: DailyCostPoint[] }) {
  return (
    <Card className="flex h-full flex-col">
      <CardHeader title="Cost per Day" description="Daily totals; days are UTC calendar days." />
      <CardBody className="flex flex-1 flex-col">
        <Suspense fallback={<ChartPlaceholder />}>
          <DailyCostChart points={points} />
        </Suspense>
      </CardBody>
    </Card>
  );
}
