import type { ReactNode } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import type { CheckoutProduct } from '../../../lib/billing/checkout-request';
import { formatDollars } from '../../../lib/format';
import type { SessionUser } from '../../../lib/session/session-user';
import { planLabel, topUpLabel } from '../account-labels';
import { useCan } from '../../../lib/workspace/use-can';

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1 py-3 sm:flex-row sm:items-center sm:justify-between sm:gap-4">
      <dt className="text-sm text-gray-500">{label}</dt>
      <dd className="min-w-0 text-sm font-medium break-words text-gray-900 sm:text-right">{children}</dd>
    </div>
  );
}

interface AccountOverviewCardProps {
  user: SessionUser;
  /** The checkout being prepared, if any: its button says "Processing..." and all are disabled. */
  pendingCheckout: CheckoutProduct | null;
  onCheckout: (product: CheckoutProduct) => void;
  /** What one top-up adds, when the server said; the button is then labelled with it. */
  topUpAmount: string | null;
  testMode: boolean;
}

export function AccountOverviewCard({ user, pendingCheckout, onCheckout, topUpAmount, testMode }: AccountOverviewCardProps) {
  const isPro = user.subscription === 'pro';
  const busy = pendingCheckout !== null;
  // Only an owner of the workspace changes its plan or adds credit.
  const canBill = useCan('billing:manage');
  return (
    <Card>
      <CardHeader
        title="Account Overview"
        action={
          isPro || !canBill ? null : (
            <Button size="sm" busy={pendingCheckout === 'pro'} busyLabel="Processing..." disabled={busy} onClick={() => onCheckout('pro')}>
              Upgrade Plan
            </Button>
          )
        }
      />
      <CardBody className="py-2">
        <dl className="divide-y divide-gray-100">
          <Row label="Email">{user.email}</Row>
          <Row label="Subscription">
            <span
              className={
                isPro
                  ? 'inline-flex items-center rounded-full bg-brand-50 px-2.5 py-0.5 text-brand-700 ring-1 ring-brand-200 ring-inset'
                  : 'inline-flex items-center rounded-full bg-gray-100 px-2.5 py-0.5 text-gray-700 ring-1 ring-gray-200 ring-inset'
              }
            >
              {planLabel(user.subscription)}
            </span>
          </Row>
          <Row label="Credit balance">
            <span className="inline-flex items-center gap-3">
              <span className="tabular-nums">{formatDollars(user.usage.creditBalance, 4)}</span>
              {canBill ? (
                <Button
                  variant="secondary"
                  size="sm"
                  busy={pendingCheckout === 'credit_topup'}
                  busyLabel="Processing..."
                  disabled={busy}
                  onClick={() => onCheckout('credit_topup')}
                >
                  {topUpLabel(topUpAmount)}
                </Button>
              ) : null}
            </span>
          </Row>
        </dl>
        {testMode ? <p className="pb-2 text-xs text-gray-500">Payments are in test mode — no real payment is taken.</p> : null}
      </CardBody>
    </Card>
  );
}
