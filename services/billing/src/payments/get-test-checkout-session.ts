// What the gateway's test-mode checkout page shows and completes. Only in TEST MODE: with a real
// Stripe key there is no local page, and no local session may be completed by one.
import { failedPrecondition, invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { CheckoutSession } from '../generated/prisma/client.ts';
import type { PaymentsDeps } from './payments-deps.ts';

export async function getTestCheckoutSession(
  deps: Pick<PaymentsDeps, 'prisma' | 'stripe'>,
  rawSessionId: string,
): Promise<CheckoutSession> {
  if (deps.stripe) throw failedPrecondition('Test checkout is only available in test mode (without STRIPE_SECRET_KEY).');
  const sessionId = rawSessionId.trim();
  if (!sessionId) throw invalid('session_id is required.');
  if (sessionId.length > 255) throw invalid('session_id must be at most 255 characters.');
  // Every id billing issues is base64url with its prefix; anything else (a NUL included) is never looked up.
  if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) throw notFound('Checkout session not found.');
  const session = await deps.prisma.checkoutSession.findUnique({ where: { id: sessionId } });
  if (!session?.testMode) throw notFound('Checkout session not found.');
  return session;
}
