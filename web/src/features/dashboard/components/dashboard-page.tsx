import { useMemo } from 'react';
import { Alert } from '../../../components/ui/alert';
import { PageContainer } from '../../../components/ui/page-container';
import { useCheckout } from '../../../lib/billing/use-checkout';
import { useRouteNotice } from '../../../lib/route-notice';
import { useSession } from '../../../lib/session/session-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { displayName } from '../account-labels';
import { CHECKOUT_CONFIRMING_MESSAGE, useFreshAccount } from '../hooks/use-fresh-account';
import { useBillingOptions } from '../hooks/use-billing-options';
import { useMonthlyUsage } from '../hooks/use-monthly-usage';
import { AccountOverviewCard } from './account-overview-card';
import { AnalyticsSummaryCard } from './analytics-summary-card';
import { MyChatbotsCard } from './my-chatbots-card';
import { UsageStatisticsCard } from './usage-statistics-card';
import { WorkspaceEyebrow } from '../../../components/workspace/workspace-eyebrow';

export function DashboardPage() {
  useDocumentTitle('Dashboard');
  const { user } = useSession();
  const monthly = useMonthlyUsage();
  const billingOptions = useBillingOptions();
  const { startCheckout, pending } = useCheckout();
  const checkoutReturn = useFreshAccount(monthly.refetch);
  // E.g. "You have left the workspace." after leaving or deleting the one shown before.
  const notice = useRouteNotice();

  const costs = useMemo(
    () => (monthly.usage ? new Map(monthly.usage.usageByChatbot.map((c) => [c.chatbotId, c.totalCost])) : null),
    [monthly.usage],
  );

  // The route guard only renders this page for a signed-in user.
  if (!user) return null;

  return (
    <PageContainer className="py-8 sm:py-10">
      <div className="mb-8">
        <WorkspaceEyebrow />
        <h1 className="text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">Welcome back, {displayName(user.name)}</h1>
        <p className="mt-1 text-sm text-gray-600">Here&apos;s an overview of your account.</p>
      </div>
      {notice ? (
        <Alert tone="success" className="mb-6">
          {notice}
        </Alert>
      ) : null}
      {checkoutReturn.confirming ? (
        <Alert tone="info" className="mb-6">
          {CHECKOUT_CONFIRMING_MESSAGE}
        </Alert>
      ) : null}
      {checkoutReturn.applied ? (
        <Alert tone="success" className="mb-6">
          {checkoutReturn.applied}
        </Alert>
      ) : null}
      {/* min-w-0: a long email wraps inside its card instead of widening the page on a phone. */}
      <div className="grid gap-6 lg:grid-cols-2 [&>*]:min-w-0">
        <AccountOverviewCard
          user={user}
          pendingCheckout={pending}
          onCheckout={(product) => void startCheckout(product)}
          topUpAmount={billingOptions?.topUpAmount ?? null}
          testMode={billingOptions?.testMode ?? false}
        />
        <UsageStatisticsCard usage={monthly.usage} loading={monthly.loading} />
        <AnalyticsSummaryCard />
        <MyChatbotsCard plan={user.subscription} costs={costs} />
      </div>
    </PageContainer>
  );
}
