import { useMemo, useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { ButtonLink } from '../../../components/ui/button-link';
import { PageContainer } from '../../../components/ui/page-container';
import { Spinner } from '../../../components/ui/spinner';
import { formatDate } from '../../../lib/format';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { dailyCostSeries } from '../daily-series';
import { useUsageReport } from '../hooks/use-usage-report';
import { DEFAULT_USAGE_RANGE, type UsageRange } from '../usage-range';
import { CostBreakdownCard } from './cost-breakdown-card';
import { DailyCostCard } from './daily-cost-card';
import { ExportCsvButton } from './export-csv-button';
import { RequestHistoryTable } from './request-history-table';
import { TimeRangeSelect } from './time-range-select';
import { ChartIcon } from './usage-icons';
import { UsageSummaryCards } from './usage-summary-cards';
import { WorkspaceEyebrow } from '../../../components/workspace/workspace-eyebrow';

export const LOADING_USAGE_TEXT = 'Loading usage data...';

function NoUsage() {
  return (
    <div className="flex flex-col items-center rounded-2xl border border-dashed border-gray-300 px-6 py-14 text-center">
      <span className="inline-flex size-12 items-center justify-center rounded-full bg-brand-50 text-brand-600">
        <ChartIcon />
      </span>
      <h2 className="mt-4 text-base font-semibold text-gray-900">No usage data</h2>
      <p className="mt-1 text-sm text-gray-600">You haven&apos;t made any requests during this time period.</p>
    </div>
  );
}

/** /usage (docs/product.md, Usage): what the owner's chatbots cost over the last week, month or year. */
export function UsagePage() {
  useDocumentTitle('Usage');
  const [range, setRange] = useState<UsageRange>(DEFAULT_USAGE_RANGE);
  const { report, period, loading, error, retry } = useUsageReport(range);
  const points = useMemo(() => (report ? dailyCostSeries(report.dailyUsage, period.start, period.end) : []), [report, period]);

  return (
    <PageContainer className="py-8 sm:py-10">
      <ButtonLink to="/dashboard" variant="secondary" size="sm">
        <span aria-hidden="true">←</span> Back to Dashboard
      </ButtonLink>

      <div className="mt-6 mb-8 flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div className="min-w-0">
          <WorkspaceEyebrow />
          <h1 className="text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">Usage Details</h1>
          <p className="mt-1 text-sm text-gray-600">
            {formatDate(period.start.toISOString())} – {formatDate(period.end.toISOString())}
          </p>
        </div>
        <div className="flex items-center gap-3">
          <TimeRangeSelect value={range} onChange={setRange} />
          <ExportCsvButton requests={report?.recentRequests} />
        </div>
      </div>

      {loading ? (
        <div className="flex items-center justify-center gap-3 py-24 text-sm text-gray-600">
          <Spinner className="size-5 text-brand-600" />
          {LOADING_USAGE_TEXT}
        </div>
      ) : null}

      {error ? (
        <Alert className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
          <span>{error}</span>
          <Button variant="secondary" size="sm" onClick={retry}>
            Try Again
          </Button>
        </Alert>
      ) : null}

      {report ? (
        <div className="space-y-6">
          <UsageSummaryCards report={report} />
          {report.recentRequests.length === 0 ? (
            <NoUsage />
          ) : (
            <>
              <div className="grid gap-6 lg:grid-cols-3">
                <div className="min-w-0 lg:col-span-2">
                  <DailyCostCard points={points} />
                </div>
                <CostBreakdownCard report={report} />
              </div>
              <RequestHistoryTable report={report} />
            </>
          )}
        </div>
      ) : null}
    </PageContainer>
  );
}
