// TEST MODE checkout (billing has no STRIPE_SECRET_KEY): the local page a checkout's url points at,
// clearly labelled as taking no real payment. Pay builds the checkout.session.completed event Stripe
// would send, signs it with the webhook secret and hands it to the SAME verify-and-enqueue path as
// POST /api/payment/webhook, so billing applies it exactly as a real one. The page is reached by a
// browser redirect (no bearer token): the unguessable session id is the capability, as on Stripe's
// hosted page. Plain HTML forms, inline styles only (the CSP forbids inline scripts).
import { Router, type Request, type Response } from 'express';
import { CheckoutProduct, type GetTestCheckoutSessionResponse } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import type { Clients } from '../http/clients.ts';
import { mapError } from '../http/errors.ts';
import { button, escapeHtml, h1, page, testModeBadge, testSession } from '../http/html-page.ts';
import type { StripeEventIntake } from '../features/billing/stripe-events.ts';
import { stripeSdk } from '../features/billing/stripe-sdk.ts';

/** The event Stripe sends when a checkout is paid, for a test-mode session. */
export function completedCheckoutEvent(session: GetTestCheckoutSessionResponse, now: Date) {
  const subscription = session.product === CheckoutProduct.PRO_SUBSCRIPTION;
  const metadata: Record<string, string> = subscription
    ? { userId: session.ownerId, type: 'subscription', plan: 'pro' }
    : { userId: session.ownerId, type: 'credit_topup' };
  return {
    // One event per session: paying twice delivers the same event again, which billing ignores.
    id: `evt_test_${session.sessionId}`,
    object: 'event',
    type: 'checkout.session.completed',
    created: Math.floor(now.getTime() / 1000),
    livemode: false,
    data: {
      object: {
        id: session.sessionId,
        object: 'checkout.session',
        mode: subscription ? 'subscription' : 'payment',
        status: 'complete',
        payment_status: 'paid',
        customer: session.customerId || null,
        client_reference_id: session.ownerId,
        metadata,
        amount_total: Number(session.amountCents),
        currency: 'usd',
        subscription: subscription ? `sub_test_${session.sessionId}` : null,
        success_url: session.successUrl,
        cancel_url: session.cancelUrl,
      },
    },
  };
}

const dollars = (cents: bigint) => `$${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;

export function productLabel(session: Pick<GetTestCheckoutSessionResponse, 'product' | 'amountCents'>): string {
  return session.product === CheckoutProduct.PRO_SUBSCRIPTION
    ? `Parley Pro — ${dollars(session.amountCents)} / month`
    : `Credit top-up — ${dollars(session.amountCents)}`;
}

const findSession = (clients: Clients, req: Request, res: Response, logger: Logger) =>
  testSession(req, res, logger, (sessionId) => clients.billing.getTestCheckoutSession({ sessionId }), {
    notFound: notFoundPage,
    unavailable: 'Checkout unavailable',
  });

export function testCheckoutRoutes(clients: Clients, intake: StripeEventIntake, logger: Logger): Router {
  const router = Router();
  // The page and its answers are per session and change once paid.
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  router.get('/:sessionId', async (req, res) => {
    const session = await findSession(clients, req, res, logger);
    if (!session) return;
    page(res, 200, 'Checkout', checkoutBody(session));
  });

  router.post('/:sessionId/pay', async (req, res) => {
    const session = await findSession(clients, req, res, logger);
    if (!session) return;
    const payload = JSON.stringify(completedCheckoutEvent(session, new Date()));
    const signature = (await stripeSdk()).webhooks.generateTestHeaderString({ payload, secret: intake.secret });
    try {
      await intake.receive(payload, signature);
    } catch (err) {
      const { status, message } = mapError(err, logger);
      page(
        res,
        status,
        'Payment not completed',
        `<h1 style="${h1}">Payment not completed</h1><p>${escapeHtml(message)}</p>${backLink(session.cancelUrl)}`,
      );
      return;
    }
    res.redirect(303, session.successUrl);
  });

  router.post('/:sessionId/cancel', async (req, res) => {
    const session = await findSession(clients, req, res, logger);
    if (!session) return;
    res.redirect(303, session.cancelUrl);
  });

  router.use((_req, res) => notFoundPage(res));
  return router;
}

function notFoundPage(res: Response) {
  page(
    res,
    404,
    'Checkout not found',
    `<h1 style="${h1}">Checkout not found</h1><p>This checkout does not exist, or payments are not in test mode.</p>`,
  );
}

function checkoutBody(session: GetTestCheckoutSessionResponse): string {
  const action = `/checkout/test/${encodeURIComponent(session.sessionId)}`;
  const paid = session.completed
    ? '<p style="color:#166534;background:#dcfce7;border-radius:.5rem;padding:.5rem .75rem">This checkout has already been paid.</p>'
    : '';
  return `${testModeBadge()}
<h1 style="${h1}">Parley checkout</h1>
<p style="font-size:1.125rem;margin:0 0 .5rem" data-product>${escapeHtml(productLabel(session))}</p>
<p style="color:#4b5563;margin:0 0 1.5rem">Nothing is charged: this page stands in for Stripe while no Stripe key is configured. Pay completes the checkout as a real payment would.</p>
${paid}<div style="display:flex;gap:.75rem;flex-wrap:wrap">
<form method="post" action="${action}/pay"><button type="submit" style="${button};background:#4f46e5;color:#fff">Pay</button></form>
<form method="post" action="${action}/cancel"><button type="submit" style="${button};background:#e5e7eb;color:#111827">Cancel</button></form>
</div>`;
}

function backLink(url: string): string {
  return `<p><a href="${escapeHtml(url)}">Back</a></p>`;
}
