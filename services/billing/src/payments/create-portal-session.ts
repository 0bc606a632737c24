// Where a pro owner manages or cancels their subscription: Stripe's customer portal for their
// customer, or in TEST MODE a local session the gateway's page reads (test-portal.ts there), whose
// random id is the page's capability for an hour. Only for an owner with a subscription to manage.
import { randomBytes } from 'node:crypto';
import { failedPrecondition, unavailable } from '@parley/common/rpc-errors.ts';
import { getAccount } from '../core/get-account.ts';
import { parseOwnerId } from '../core/owner-id.ts';
import { parseReturnUrl } from './create-checkout-session.ts';
import type { PaymentsDeps } from './payments-deps.ts';
import { callStripe } from './stripe-client.ts';

export interface CreatePortalSessionInput {
  ownerId: string;
  returnUrl: string;
}

export const NO_SUBSCRIPTION_MESSAGE = 'You have no subscription to manage.';

/** How long a test-mode portal session's page can be used (Stripe's portal sessions are short-lived too). */
export const TEST_PORTAL_SESSION_TTL_MS = 60 * 60_000;

/** The path of the gateway's test-mode portal page for a session. */
export const testPortalPath = (sessionId: string) => `/billing/test-portal/${sessionId}`;

export async function createPortalSession(deps: PaymentsDeps, input: CreatePortalSessionInput): Promise<{ url: string }> {
  const ownerId = parseOwnerId(input.ownerId);
  const returnUrl = parseReturnUrl(input.returnUrl, 'return_url');

  const account = await getAccount(deps, ownerId);
  const subscriptions = await deps.prisma.subscription.count({ where: { ownerId } });
  if (!account.stripeCustomerId || subscriptions === 0) throw failedPrecondition(NO_SUBSCRIPTION_MESSAGE);

  if (deps.stripe) {
    const stripe = deps.stripe;
    const session = await callStripe(deps.logger, 'create portal session', () =>
      stripe.billingPortal.sessions.create({ customer: account.stripeCustomerId!, return_url: returnUrl }),
    );
    if (!session.url) {
      deps.logger.error({ sessionId: session.id }, 'stripe: portal session has no url');
      throw unavailable('The subscription page could not be opened. Please try again.');
    }
    return { url: session.url };
  }

  // 128 random bits, as a test checkout's id.
  const id = `bps_test_${randomBytes(16).toString('base64url')}`;
  await deps.prisma.portalSession.create({
    data: { id, ownerId, returnUrl, expiresAt: new Date(Date.now() + TEST_PORTAL_SESSION_TTL_MS) },
  });
  return { url: `${deps.config.PUBLIC_URL}${testPortalPath(id)}` };
}
