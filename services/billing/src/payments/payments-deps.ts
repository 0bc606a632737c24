// What the payment use cases need: the database, the Stripe client (null in TEST MODE) and the
// part of billing's configuration that says what is sold and for how much.
import type { Logger } from '@parley/common/logger.ts';
import type { OpenAccountDeps } from '../core/open-account.ts';
import type { BillingConfig } from '../config.ts';
import type { Stripe } from './stripe-client.ts';

export type PaymentsConfig = Pick<
  BillingConfig,
  'STRIPE_PRICE_PRO' | 'STRIPE_PRICE_TOPUP' | 'PUBLIC_URL' | 'PRO_PLAN_CREDIT' | 'CREDIT_TOPUP_AMOUNT' | 'PRO_PLAN_PRICE'
>;

export interface PaymentsDeps extends OpenAccountDeps {
  /** Null in test mode (no STRIPE_SECRET_KEY): nothing reaches Stripe. */
  stripe: Stripe | null;
  logger: Logger;
  config: PaymentsConfig;
}
