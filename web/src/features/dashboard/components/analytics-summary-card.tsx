import { Link } from 'react-router-dom';
import { ActivityCard } from '../../../components/analytics/activity-card';
import { AnalyticsTotals } from '../../../components/analytics/analytics-totals';
import { Badge } from '../../../components/ui/badge';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { Spinner } from '../../../components/ui/spinner';
import { useAnalyticsSummary } from '../hooks/use-analytics-summary';

const TITLE = 'Analytics';
const DESCRIPTION = 'All your chatbots over the last 30 days (UTC).';

/**
 * The dashboard's analytics across all chatbots: the totals and, for Pro (the server's `full`), the
 * daily chart; free owners get a hint towards Pro instead. Nothing when the summary cannot be loaded.
 */
export function AnalyticsSummaryCard() {
  const { summary, loading } = useAnalyticsSummary();
  if (!summary && !loading) return null;

  if (!summary) {
    return (
      <Card className="lg:col-span-2">
        <CardHeader title={TITLE} description={DESCRIPTION} />
        <CardBody className="flex justify-center py-8 text-brand-600">
          <Spinner className="size-6" label="Loading analytics" />
        </CardBody>
      </Card>
    );
  }

  const totals = <AnalyticsTotals totals={summary.totals} className="lg:grid-cols-6" />;
  if (summary.full) {
    return (
      <ActivityCard title={TITLE} description={DESCRIPTION} days={summary.days} height={180} className="lg:col-span-2">
        <div className="mb-5">{totals}</div>
      </ActivityCard>
    );
  }
  return (
    <Card className="lg:col-span-2">
      <CardHeader title={TITLE} description={DESCRIPTION} />
      <CardBody>
        {totals}
        <p className="mt-4 flex flex-wrap items-center gap-2 text-sm text-gray-600">
          <Badge tone="brand">PRO</Badge>
          <span>
            <Link to="/pricing" className="font-medium text-brand-700 hover:text-brand-800 hover:underline">
              Upgrade to Pro
            </Link>{' '}
            for daily charts, busiest hours, the most asked questions and the questions your chatbots could not answer.
          </span>
        </p>
      </CardBody>
    </Card>
  );
}
