// A checkout for one of the two products the server sells: the pro plan's monthly subscription or
// a credit top-up. What is sold (price id, quantity 1) is billing's configuration, never the
// caller's; the session is tied to the owner (their customer, client_reference_id and metadata), so
// the Stripe events it produces can only credit that owner. In TEST MODE the session is local and
// the gateway's test page completes it.
import { randomBytes } from 'node:crypto';
import { failedPrecondition, invalid, unavailable } from '@parley/common/rpc-errors.ts';
import type { CheckoutProduct } from '../generated/prisma/client.ts';
import { getAccount } from '../core/get-account.ts';
import { parseOwnerId } from '../core/owner-id.ts';
import { centsOf } from '../config.ts';
import { createCustomer } from './create-customer.ts';
import type { PaymentsDeps } from './payments-deps.ts';
import { callStripe, type Stripe } from './stripe-client.ts';

export type { CheckoutProduct };

export interface CreateCheckoutSessionInput {
  ownerId: string;
  email?: string;
  /** Undefined when the caller named no product. */
  product: CheckoutProduct | undefined;
  successUrl: string;
  cancelUrl: string;
}

export interface CreateCheckoutSessionResult {
  sessionId: string;
  /** Stripe's hosted page, or the local test-mode page. */
  url: string;
}

export const ALREADY_PRO_MESSAGE = 'You are already on the Pro plan.';

/** The metadata `type` of each product, as the checkout payload names it (docs/product.md, Plans, credit and checkout). */
export const CHECKOUT_TYPE: Record<CheckoutProduct, 'subscription' | 'credit_topup'> = {
  pro_subscription: 'subscription',
  credit_topup: 'credit_topup',
};

/** The path of the gateway's test-mode checkout page for a session. */
export const testCheckoutPath = (sessionId: string) => `/checkout/test/${sessionId}`;

export async function createCheckoutSession(deps: PaymentsDeps, input: CreateCheckoutSessionInput): Promise<CreateCheckoutSessionResult> {
  const ownerId = parseOwnerId(input.ownerId);
  const product = input.product;
  if (product !== 'pro_subscription' && product !== 'credit_topup') throw invalid('product must be PRO_SUBSCRIPTION or CREDIT_TOPUP.');
  const successUrl = parseReturnUrl(input.successUrl, 'success_url');
  const cancelUrl = parseReturnUrl(input.cancelUrl, 'cancel_url');

  if (product === 'pro_subscription' && (await getAccount(deps, ownerId)).plan === 'pro') throw failedPrecondition(ALREADY_PRO_MESSAGE);

  const customerId = await createCustomer(deps, { ownerId, email: input.email });
  const session = deps.stripe
    ? await stripeSession(deps, deps.stripe, { ownerId, product, customerId, successUrl, cancelUrl })
    : testSession(deps, product);

  await deps.prisma.checkoutSession.create({
    data: { id: session.id, ownerId, product, customerId, amountCents: session.amountCents, testMode: !deps.stripe, successUrl, cancelUrl },
  });
  return { sessionId: session.id, url: session.url };
}

async function stripeSession(
  deps: PaymentsDeps,
  stripe: Stripe,
  s: { ownerId: string; product: CheckoutProduct; customerId: string; successUrl: string; cancelUrl: string },
): Promise<{ id: string; url: string; amountCents: null }> {
  const subscription = s.product === 'pro_subscription';
  // readBillingConfig requires both prices whenever a Stripe key is set.
  const price = subscription ? deps.config.STRIPE_PRICE_PRO! : deps.config.STRIPE_PRICE_TOPUP!;
  const params: Stripe.Checkout.SessionCreateParams = {
    mode: subscription ? 'subscription' : 'payment',
    line_items: [{ price, quantity: 1 }],
    customer: s.customerId,
    client_reference_id: s.ownerId,
    // The owner under the metadata key `userId`, as every session and subscription made before carries it.
    metadata: { userId: s.ownerId, type: CHECKOUT_TYPE[s.product], ...(subscription && { plan: 'pro' }) },
    // The subscription's own events (updated, deleted) then name the owner too.
    ...(subscription && { subscription_data: { metadata: { userId: s.ownerId } } }),
    success_url: s.successUrl,
    cancel_url: s.cancelUrl,
  };
  const session = await callStripe(deps.logger, 'create checkout session', () => stripe.checkout.sessions.create(params));
  if (!session.url) {
    deps.logger.error({ sessionId: session.id }, 'stripe: checkout session has no url');
    throw unavailable('The checkout could not be started. Please try again.');
  }
  return { id: session.id, url: session.url, amountCents: null };
}

function testSession(deps: PaymentsDeps, product: CheckoutProduct): { id: string; url: string; amountCents: number } {
  // 128 random bits: the id is all a test page's visitor needs to complete the session.
  const id = `cs_test_local_${randomBytes(16).toString('base64url')}`;
  const amount = product === 'pro_subscription' ? deps.config.PRO_PLAN_PRICE : deps.config.CREDIT_TOPUP_AMOUNT;
  return { id, url: `${deps.config.PUBLIC_URL}${testCheckoutPath(id)}`, amountCents: centsOf(amount) };
}

/** The gateway has checked the origin; billing still refuses anything a browser should not be sent to. */
export function parseReturnUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid(`${name} must be an absolute http(s) URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`${name} must be an absolute http(s) URL.`);
  if (url.href.length > 2048) throw invalid(`${name} must be at most 2048 characters.`);
  return url.href;
}
