import type { ReactNode } from 'react';
import { ButtonLink } from '../../../components/ui/button-link';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { Spinner } from '../../../components/ui/spinner';
import type { DashboardUsageQuery } from '../../../gql/graphql';
import { formatDollars } from '../../../lib/format';
import { creditBarTone, creditPercentUsed, FALLBACK_CREDIT_BALANCE, type CreditBarTone } from '../credit-usage';

type MonthlyUsage = DashboardUsageQuery['usage'];

const barColour: Record<CreditBarTone, string> = {
  green: 'bg-green-500',
  yellow: 'bg-yellow-400',
  red: 'bg-red-500',
};

function Figure({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div>
      <dt className="text-sm text-gray-500">{label}</dt>
      <dd className="mt-1 text-2xl font-semibold tracking-tight text-gray-900 tabular-nums">{value}</dd>
    </div>
  );
}

/** The credit bar: how much of the balance this month's usage amounts to, coloured by the 30/70 rule. */
export function CreditBar({ percent }: { percent: number }) {
  const tone = creditBarTone(percent);
  return (
    <div>
      <div
        role="progressbar"
        aria-label="Credit used"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        data-tone={tone}
        className="h-2.5 overflow-hidden rounded-full bg-gray-100"
      >
        <div className={`h-full rounded-full transition-[width] duration-500 ${barColour[tone]}`} style={{ width: `${percent}%` }} />
      </div>
      <p className="mt-2 text-sm text-gray-500 tabular-nums">{percent}% of your credit balance used this month</p>
    </div>
  );
}

/**
 * Usage Statistics (docs/product.md, Dashboard): the credit balance and this month's spend, 4 decimals. Spinner while
 * loading; when the usage could not be loaded there is no card at all (the failure is only logged).
 */
export function UsageStatisticsCard({ usage, loading }: { usage: MonthlyUsage | null; loading: boolean }) {
  if (!usage && !loading) return null;
  const balance = usage?.currentCreditBalance || String(FALLBACK_CREDIT_BALANCE);
  return (
    <Card>
      <CardHeader
        title="Usage Statistics"
        action={
          <ButtonLink to="/usage" variant="ghost" size="sm">
            Usage Details <span aria-hidden="true">→</span>
          </ButtonLink>
        }
      />
      <CardBody>
        {usage ? (
          <>
            <dl className="grid grid-cols-2 gap-4">
              <Figure label="Current credit balance" value={formatDollars(balance, 4)} />
              <Figure label="Credit used this month" value={formatDollars(usage.overallUsage.totalCost, 4)} />
            </dl>
            <div className="mt-5">
              <CreditBar percent={creditPercentUsed(usage.overallUsage.totalCost, balance)} />
            </div>
          </>
        ) : (
          <div className="flex justify-center py-8 text-brand-600">
            <Spinner className="size-6" label="Loading usage statistics" />
          </div>
        )}
      </CardBody>
    </Card>
  );
}
