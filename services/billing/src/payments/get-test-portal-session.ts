// What the gateway's test-mode portal page shows: the owner, their customer, the subscription the page
// can cancel (their newest) and where to return. Only in TEST MODE, and only while the session lasts.
import { failedPrecondition, invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { PaymentsDeps } from './payments-deps.ts';

export interface TestPortalSession {
  sessionId: string;
  ownerId: string;
  customerId: string;
  /** Empty when the owner has no subscription (any more). */
  subscriptionId: string;
  subscriptionStatus: string;
  returnUrl: string;
}

const NOT_FOUND = 'Portal session not found.';

export async function getTestPortalSession(
  deps: Pick<PaymentsDeps, 'prisma' | 'stripe'>,
  rawSessionId: string,
): Promise<TestPortalSession> {
  if (deps.stripe) throw failedPrecondition('The test portal is only available in test mode (without STRIPE_SECRET_KEY).');
  const sessionId = rawSessionId.trim();
  if (!sessionId) throw invalid('session_id is required.');
  if (sessionId.length > 255) throw invalid('session_id must be at most 255 characters.');
  // Every id billing issues is base64url with its prefix; anything else (a NUL included) is never looked up.
  if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) throw notFound(NOT_FOUND);

  const session = await deps.prisma.portalSession.findUnique({ where: { id: sessionId } });
  if (!session || session.expiresAt.getTime() <= Date.now()) throw notFound(NOT_FOUND);
  const [account, subscription] = await Promise.all([
    deps.prisma.account.findUnique({ where: { ownerId: session.ownerId }, select: { stripeCustomerId: true } }),
    deps.prisma.subscription.findFirst({ where: { ownerId: session.ownerId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
  ]);
  if (!account) throw notFound(NOT_FOUND);
  return {
    sessionId: session.id,
    ownerId: session.ownerId,
    customerId: account.stripeCustomerId ?? '',
    subscriptionId: subscription?.id ?? '',
    subscriptionStatus: subscription?.status ?? '',
    returnUrl: session.returnUrl,
  };
}
