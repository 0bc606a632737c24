import { lazy, Suspense } from 'react';
import { ChartPlaceholder } from '../../../components/analytics/activity-card';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';

// recharts arrives in its own chunk, shared with the activity chart.
const BusiestHoursChart = lazy(() => import('../../../components/analytics/busiest-hours-chart'));

const HEIGHT = 220;

export function BusiestHoursCard({ hours }: { hours: number[] }) {
  return (
    <Card className="flex h-full flex-col">
      <CardHeader title="Busiest hours" description="Messages per hour of the day (UTC)." />
      <CardBody className="flex-1">
        <Suspense fallback={<ChartPlaceholder height={HEIGHT} />}>
          <BusiestHoursChart hours={hours} height={HEIGHT} />
        </Suspense>
      </CardBody>
    </Card>
  );
}
