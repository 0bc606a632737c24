import type { ReactNode } from 'react';
import type { AnalyticsFieldsFragment } from '../../gql/graphql';
import { formatDuration, formatShare, positiveShare } from '../../lib/analytics/analytics-format';
import { cn } from '../../lib/cn';
import { formatCount } from '../../lib/format';
import { ClockIcon, ConversationsIcon, KnowledgeIcon, MessagesIcon, ThumbDownIcon, ThumbUpIcon, VisitorsIcon } from './analytics-icons';

type Totals = AnalyticsFieldsFragment['totals'];

function Figure({ label, icon, value, detail }: { label: string; icon: ReactNode; value: ReactNode; detail?: ReactNode }) {
  return (
    // A label too long for a narrow card wraps; the figures sit at the bottom, so a row's figures
    // line up whatever its labels (a card without a detail keeps the detail's line).
    <section aria-label={label} className="flex min-w-0 flex-col rounded-2xl border border-gray-200 bg-white p-4 shadow-sm">
      <div className="flex items-start justify-between gap-2">
        <h3 className="pt-1.5 text-sm leading-5 font-medium text-gray-500">{label}</h3>
        <span className="inline-flex size-8 shrink-0 items-center justify-center rounded-full bg-brand-50 text-brand-600">{icon}</span>
      </div>
      <div className="mt-auto pt-2">
        <p className="text-2xl font-semibold tracking-tight text-gray-900 tabular-nums">{value}</p>
        <p className="mt-0.5 truncate text-xs text-gray-500 tabular-nums">{detail ?? '\u00a0'}</p>
      </div>
    </section>
  );
}

/**
 * The range's totals as figure cards: volume (conversations, messages, visitors) and quality (how
 * often the knowledge answered, the visitors' thumbs, the median answer time). Free owners see these too.
 */
export function AnalyticsTotals({ totals, className }: { totals: Totals; className?: string }) {
  const positive = positiveShare(totals.thumbsUp, totals.thumbsDown);
  return (
    <div className={cn('grid grid-cols-2 gap-3 sm:grid-cols-3', className)}>
      <Figure label="Conversations" icon={<ConversationsIcon className="size-4" />} value={formatCount(totals.conversations)} />
      <Figure label="Messages" icon={<MessagesIcon className="size-4" />} value={formatCount(totals.messages)} />
      <Figure label="Unique visitors" icon={<VisitorsIcon className="size-4" />} value={formatCount(totals.uniqueVisitors)} />
      <Figure
        label="Answered from knowledge"
        icon={<KnowledgeIcon className="size-4" />}
        value={formatShare(totals.answeredShare)}
        detail={`${formatCount(totals.answered)} of ${formatCount(totals.messages)} messages`}
      />
      <Figure
        label="Ratings"
        icon={<ThumbUpIcon className="size-4" />}
        value={
          <span className="flex items-center gap-3">
            <span className="inline-flex items-center gap-1" aria-label={`${formatCount(totals.thumbsUp)} thumbs up`}>
              <ThumbUpIcon className="size-4 text-green-600" />
              {formatCount(totals.thumbsUp)}
            </span>
            <span className="inline-flex items-center gap-1" aria-label={`${formatCount(totals.thumbsDown)} thumbs down`}>
              <ThumbDownIcon className="size-4 text-red-500" />
              {formatCount(totals.thumbsDown)}
            </span>
          </span>
        }
        detail={positive === null ? 'No ratings yet' : `${formatShare(positive)} positive`}
      />
      <Figure label="Median answer time" icon={<ClockIcon className="size-4" />} value={formatDuration(totals.medianAnswerMs)} />
    </div>
  );
}
