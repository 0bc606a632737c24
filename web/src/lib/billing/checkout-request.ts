import type { CreateCheckoutSessionInput } from '../../gql/graphql';

/** What an owner can buy: the pro subscription or one credit top-up. */
export type CheckoutProduct = 'pro' | 'credit_topup';

/** The query string the dashboard looks for on return, to refresh the plan and credit a few times. */
export const CHECKOUT_SUCCESS_PARAM = 'checkout';
export const CHECKOUT_SUCCESS_VALUE = 'success';

/**
 * The checkout payload (docs/product.md, Plans, credit and checkout). The server decides the real price and quantity; these fields only
 * say which product is meant. Payment returns to the dashboard; cancelling returns to this page.
 */
export function checkoutRequest(product: CheckoutProduct, page: { origin: string; href: string }): CreateCheckoutSessionInput {
  const urls = {
    successUrl: `${page.origin}/dashboard?${CHECKOUT_SUCCESS_PARAM}=${CHECKOUT_SUCCESS_VALUE}`,
    cancelUrl: page.href,
  };
  if (product === 'pro') {
    return {
      mode: 'subscription',
      lineItems: [{ price: 'pro', quantity: 1 }],
      metadata: { type: 'subscription', plan: 'pro' },
      ...urls,
    };
  }
  return {
    mode: 'payment',
    lineItems: [{ price: 'credit_topup', quantity: 1 }],
    metadata: { type: 'credit_topup' },
    ...urls,
  };
}
