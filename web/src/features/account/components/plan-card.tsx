import { Button } from '../../../components/ui/button';
import { ButtonLink } from '../../../components/ui/button-link';
import { planLabel } from '../../../lib/billing/plan-label';
import { useCheckout } from '../../../lib/billing/use-checkout';
import type { Plan } from '../../../lib/session/session-user';
import { useCan } from '../../../lib/workspace/use-can';
import { useBillingPortal } from '../hooks/use-billing-portal';
import { AccountSection, FormOutcome } from './account-section';

const PLAN_SUMMARY: Record<Plan, string> = {
  free: 'One chatbot. Upgrade for unlimited chatbots and their conversation history.',
  pro: 'Unlimited chatbots and their conversation history. Change your payment details or cancel in the billing portal.',
};

/** The plan as the dashboard names it, with the way to change it: upgrade (free) or manage (pro). */
export function PlanCard({ plan }: { plan: Plan }) {
  const { startCheckout, pending } = useCheckout();
  const { openBillingPortal, opening, error } = useBillingPortal();
  const isPro = plan === 'pro';
  // Only an owner of the workspace changes its plan.
  const canBill = useCan('billing:manage');

  return (
    <AccountSection
      title="Plan"
      action={
        <ButtonLink to="/pricing" variant="ghost" size="sm">
          Compare plans
        </ButtonLink>
      }
    >
      <div className="space-y-4">
        <FormOutcome error={error} />
        <div className="flex flex-wrap items-center justify-between gap-4">
          <div className="min-w-0 flex-1">
            <span
              className={
                isPro
                  ? 'inline-flex items-center rounded-full bg-brand-50 px-2.5 py-0.5 text-sm font-medium text-brand-700 ring-1 ring-brand-200 ring-inset'
                  : 'inline-flex items-center rounded-full bg-gray-100 px-2.5 py-0.5 text-sm font-medium text-gray-700 ring-1 ring-gray-200 ring-inset'
              }
            >
              {planLabel(plan)}
            </span>
            <p className="mt-2 text-sm text-gray-600">{PLAN_SUMMARY[plan]}</p>
          </div>
          {!canBill ? null : isPro ? (
            <Button variant="secondary" onClick={() => void openBillingPortal()} busy={opening} busyLabel="Opening...">
              Manage subscription
            </Button>
          ) : (
            <Button
              onClick={() => void startCheckout('pro')}
              busy={pending === 'pro'}
              busyLabel="Processing..."
              disabled={pending !== null}
            >
              Upgrade Plan
            </Button>
          )}
        </div>
      </div>
    </AccountSection>
  );
}
