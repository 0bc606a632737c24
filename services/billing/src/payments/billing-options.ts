// What the server sells and whether checkout takes real payments, for the pages' labels (the
// pricing page, the top-up control, the test-mode banner). Amounts as exact decimal strings.
import { Prisma } from '../generated/prisma/client.ts';
import { formatMoney } from '../core/money.ts';
import type { PaymentsDeps } from './payments-deps.ts';

export function billingOptions(deps: Pick<PaymentsDeps, 'stripe' | 'config'>) {
  const money = (amount: string) => formatMoney(new Prisma.Decimal(amount));
  return {
    /** No STRIPE_SECRET_KEY: checkout runs on the local test page. */
    testMode: deps.stripe === null,
    topUpAmount: money(deps.config.CREDIT_TOPUP_AMOUNT),
    proPlanPrice: money(deps.config.PRO_PLAN_PRICE),
    proPlanCredit: money(deps.config.PRO_PLAN_CREDIT),
  };
}
