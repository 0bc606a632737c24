import type { ReactNode } from 'react';
import { ButtonLink } from '../../../components/ui/button-link';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { formatDollars } from '../../../lib/format';
import type { SessionUser } from '../../../lib/session/session-user';
import { planLabel } from '../account-labels';

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1 py-3 sm:flex-row sm:items-center sm:justify-between sm:gap-4">
      <dt className="text-sm text-gray-500">{label}</dt>
      <dd className="min-w-0 text-sm font-medium break-words text-gray-900 sm:text-right">{children}</dd>
    </div>
  );
}

export function AccountOverviewCard({ user }: { user: SessionUser }) {
  const isPro = user.subscription === 'pro';
  return (
    <Card>
      <CardHeader
        title="Account Overview"
        action={
          isPro ? null : (
            <ButtonLink to="/pricing" size="sm">
              Upgrade Plan
            </ButtonLink>
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
            <span className="tabular-nums">{formatDollars(user.usage.creditBalance, 4)}</span>
          </Row>
        </dl>
      </CardBody>
    </Card>
  );
}
