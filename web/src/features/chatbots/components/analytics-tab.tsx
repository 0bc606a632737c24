import { useState } from 'react';
import { ActivityCard } from '../../../components/analytics/activity-card';
import { AnalyticsTotals } from '../../../components/analytics/analytics-totals';
import { UpgradePrompt } from '../../../components/analytics/upgrade-prompt';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { SelectField } from '../../../components/ui/select-field';
import { Spinner } from '../../../components/ui/spinner';
import { formatDay } from '../../../lib/analytics/analytics-format';
import { ANALYTICS_RANGES, DEFAULT_ANALYTICS_RANGE, isAnalyticsRange, type AnalyticsRange } from '../../../lib/analytics/analytics-range';
import { cn } from '../../../lib/cn';
import { useSession } from '../../../lib/session/session-context';
import { useChatbotAnalytics } from '../hooks/use-chatbot-analytics';
import { BusiestHoursCard } from './busiest-hours-card';
import { TopQuestionsCard } from './top-questions-card';
import { UnansweredQuestionsCard } from './unanswered-questions-card';
import { useCan } from '../../../lib/workspace/use-can';

export const ANALYTICS_UPGRADE_TITLE = 'Advanced analytics';
export const ANALYTICS_UPGRADE_TEXT =
  'See activity day by day, your busiest hours and what visitors ask most, and answer the questions your chatbot could not.';

interface AnalyticsTabProps {
  chatbotId: string;
  /** Whether the tab is shown: it loads only once it is. */
  open: boolean;
}

/**
 * The chatbot's Analytics tab. Every owner sees the range's totals; Pro owners (the server says so
 * with `full`) also get the daily chart, busiest hours, most asked and unanswered questions.
 */
export function AnalyticsTab({ chatbotId, open }: AnalyticsTabProps) {
  const { user } = useSession();
  const [range, setRange] = useState<AnalyticsRange>(DEFAULT_ANALYTICS_RANGE);
  const { analytics, dates, loading, refreshing, error, retry } = useChatbotAnalytics(chatbotId, range, open);
  const pro = user?.subscription === 'pro';
  const readsConversations = useCan('conversations:read');

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h2 className="text-lg font-semibold text-gray-900">Analytics</h2>
          <p className="mt-0.5 text-sm text-gray-500">
            {formatDay(dates.startDate, true)} – {formatDay(dates.endDate, true)} (UTC)
          </p>
        </div>
        <div className="flex items-center gap-3">
          {refreshing ? <Spinner className="size-4 text-brand-600" label="Updating analytics" /> : null}
          <SelectField
            label="Time range"
            hideLabel
            options={ANALYTICS_RANGES}
            value={range}
            onChange={(event) => {
              if (isAnalyticsRange(event.target.value)) setRange(event.target.value);
            }}
            controlClassName="h-10 w-44 font-medium"
          />
        </div>
      </div>

      {loading ? (
        <div className="flex justify-center py-16 text-brand-600">
          <Spinner className="size-6" label="Loading analytics" />
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

      {analytics ? (
        <div aria-busy={refreshing || undefined} className={cn('space-y-6 transition-opacity', refreshing && 'opacity-60')}>
          <AnalyticsTotals totals={analytics.totals} />
          {analytics.full ? (
            <>
              <ActivityCard days={analytics.days} />
              <div className="grid items-stretch gap-6 xl:grid-cols-2">
                <BusiestHoursCard hours={analytics.busiestHours} />
                <TopQuestionsCard questions={analytics.topQuestions} redacted={analytics.questionsRedacted} />
              </div>
            </>
          ) : (
            <UpgradePrompt title={ANALYTICS_UPGRADE_TITLE} description={ANALYTICS_UPGRADE_TEXT} />
          )}
        </div>
      ) : null}

      {/* Unanswered questions are visitors' words: a viewer does not read them. */}
      {pro && analytics?.full && readsConversations ? <UnansweredQuestionsCard chatbotId={chatbotId} enabled={open} /> : null}
    </div>
  );
}
