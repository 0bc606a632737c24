import type { ReactNode } from 'react';
import type { UsageReportQuery } from '../../../gql/graphql';
import { formatCount, formatDollars } from '../../../lib/format';
import { CoinIcon, RequestsIcon, TokensIcon } from './usage-icons';

type UsageReport = UsageReportQuery['usage'];

function SummaryCard({ label, icon, value, detail }: { label: string; icon: ReactNode; value: string; detail: ReactNode }) {
  return (
    <section aria-label={label} className="rounded-2xl border border-gray-200 bg-white p-5 shadow-sm">
      <div className="flex items-center justify-between gap-3">
        <h2 className="text-sm font-medium text-gray-500">{label}</h2>
        <span className="inline-flex size-9 items-center justify-center rounded-full bg-brand-50 text-brand-600">{icon}</span>
      </div>
      <p className="mt-3 text-2xl font-semibold tracking-tight text-gray-900 tabular-nums">{value}</p>
      <p className="mt-1 text-sm text-gray-500 tabular-nums">{detail}</p>
    </section>
  );
}

/** Total Cost, Total Tokens (Input / Output) and Requests for the whole range. */
export function UsageSummaryCards({ report }: { report: UsageReport }) {
  const totals = report.overallUsage;
  const listed = report.recentRequests.length;
  return (
    <div className="grid gap-4 sm:grid-cols-3">
      <SummaryCard
        label="Total Cost"
        icon={<CoinIcon />}
        value={formatDollars(totals.totalCost, 5)}
        detail={`Credit balance ${formatDollars(report.currentCreditBalance, 5)}`}
      />
      <SummaryCard
        label="Total Tokens"
        icon={<TokensIcon />}
        value={formatCount(totals.totalTokens)}
        detail={
          <>
            Input {formatCount(totals.totalPromptTokens)} <span aria-hidden="true">·</span> Output{' '}
            {formatCount(totals.totalCompletionTokens)}
          </>
        }
      />
      <SummaryCard
        label="Requests"
        icon={<RequestsIcon />}
        value={formatCount(totals.totalRequests)}
        detail={listed < totals.totalRequests ? `showing latest ${formatCount(listed)}` : 'in this period'}
      />
    </div>
  );
}
