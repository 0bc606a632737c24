// TEST MODE "manage plan" page (billing has no STRIPE_SECRET_KEY): the local stand-in for Stripe's
// customer portal that a portal session's url points at, clearly labelled as taking no real payment.
// Cancel subscription builds the customer.subscription.deleted event Stripe would send, signs it with
// the webhook secret and hands it to the SAME verify-and-enqueue path as POST /api/payment/webhook,
// so billing applies it exactly as a real one. Reached by a browser redirect (no bearer token): the
// unguessable session id is the capability, as on Stripe's hosted portal. Plain HTML forms, inline
// styles only (the CSP forbids inline scripts).
import { Router, type Request, type Response } from 'express';
import { Plan, type GetTestPortalSessionResponse } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import type { Clients } from '../http/clients.ts';
import { mapError } from '../http/errors.ts';
import { button, escapeHtml, h1, page, testModeBadge, testSession } from '../http/html-page.ts';
import type { StripeEventIntake } from '../features/billing/stripe-events.ts';
import { stripeSdk } from '../features/billing/stripe-sdk.ts';

/** Where the router is mounted; the session's url (billing's testPortalPath) points under it. */
export const TEST_PORTAL_PATH = '/billing/test-portal';

/** One event per subscription: cancelling twice (a double click) delivers the same event, which billing applies once. */
export const portalCancelEventId = (subscriptionId: string) => `evt_test_portal_cancel_${subscriptionId}`;

/** The event Stripe sends when a subscription is canceled at once, for a test-mode portal session. */
export function subscriptionCanceledEvent(session: GetTestPortalSessionResponse, now: Date) {
  const created = Math.floor(now.getTime() / 1000);
  return {
    id: portalCancelEventId(session.subscriptionId),
    object: 'event',
    type: 'customer.subscription.deleted',
    created,
    livemode: false,
    data: {
      object: {
        id: session.subscriptionId,
        object: 'subscription',
        customer: session.customerId || null,
        status: 'canceled',
        // As billing's checkout sets it through subscription_data: the owner the event is about.
        metadata: { userId: session.ownerId },
        cancel_at_period_end: false,
        canceled_at: created,
        ended_at: created,
      },
    },
  };
}

const canCancel = (session: GetTestPortalSessionResponse) => session.subscriptionId !== '' && session.subscriptionStatus !== 'canceled';

const findSession = (clients: Clients, req: Request, res: Response, logger: Logger) =>
  testSession(req, res, logger, (sessionId) => clients.billing.getTestPortalSession({ sessionId }), {
    notFound: notFoundPage,
    unavailable: 'Plan page unavailable',
  });

export function testPortalRoutes(clients: Clients, intake: StripeEventIntake, logger: Logger): Router {
  const router = Router();
  // The page changes once the subscription is canceled.
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  router.get('/:sessionId', async (req, res) => {
    const session = await findSession(clients, req, res, logger);
    if (!session) return;
    let plan: Plan;
    try {
      plan = (await clients.billing.getAccount({ ownerId: session.ownerId })).account?.plan ?? Plan.UNSPECIFIED;
    } catch (err) {
      unavailablePage(res, err, logger);
      return;
    }
    page(res, 200, 'Manage your plan', portalBody(session, plan));
  });

  router.post('/:sessionId/cancel', async (req, res) => {
    const session = await findSession(clients, req, res, logger);
    if (!session) return;
    if (canCancel(session)) {
      const payload = JSON.stringify(subscriptionCanceledEvent(session, new Date()));
      const signature = (await stripeSdk()).webhooks.generateTestHeaderString({ payload, secret: intake.secret });
      try {
        await intake.receive(payload, signature);
      } catch (err) {
        const { status, message } = mapError(err, logger);
        page(
          res,
          status,
          'Subscription not canceled',
          `<h1 style="${h1}">Subscription not canceled</h1><p>${escapeHtml(message)}</p>${returnLink(session.returnUrl)}`,
        );
        return;
      }
    }
    res.redirect(303, session.returnUrl);
  });

  router.use((_req, res) => notFoundPage(res));
  return router;
}

function unavailablePage(res: Response, err: unknown, logger: Logger) {
  const { status, message } = mapError(err, logger);
  page(res, status, 'Plan page unavailable', `<h1 style="${h1}">Plan page unavailable</h1><p>${escapeHtml(message)}</p>`);
}

function notFoundPage(res: Response) {
  page(
    res,
    404,
    'Page not found',
    `<h1 style="${h1}">Page not found</h1><p>This link has expired or does not exist, or payments are not in test mode.</p>`,
  );
}

const link =
  'display:inline-block;border-radius:.5rem;padding:.75rem 1.5rem;font-size:1rem;font-weight:600;background:#e5e7eb;color:#111827;text-decoration:none';

const planLabel = (plan: Plan) => (plan === Plan.PRO ? 'Parley Pro' : 'Free');

function portalBody(session: GetTestPortalSessionResponse, plan: Plan): string {
  const action = `${TEST_PORTAL_PATH}/${encodeURIComponent(session.sessionId)}/cancel`;
  const status = session.subscriptionStatus || 'none';
  const cancel = canCancel(session)
    ? `<form method="post" action="${action}"><button type="submit" style="${button};background:#dc2626;color:#fff">Cancel subscription</button></form>`
    : '';
  const canceled =
    session.subscriptionStatus === 'canceled'
      ? '<p style="color:#166534;background:#dcfce7;border-radius:.5rem;padding:.5rem .75rem">This subscription has been canceled.</p>'
      : '';
  return `${testModeBadge()}
<h1 style="${h1}">Manage your plan</h1>
<p style="font-size:1.125rem;margin:0 0 .5rem" data-plan>Plan: ${escapeHtml(planLabel(plan))}</p>
<p style="margin:0 0 .5rem" data-subscription-status>Subscription status: ${escapeHtml(status)}</p>
<p style="color:#4b5563;margin:0 0 1.5rem">Nothing is charged or refunded: this page stands in for Stripe's customer portal while no Stripe key is configured. Cancel ends the subscription at once, as Stripe would.</p>
${canceled}<div style="display:flex;gap:.75rem;flex-wrap:wrap;align-items:center">
${cancel}<a href="${escapeHtml(session.returnUrl)}" style="${link}">Return to Parley</a>
</div>`;
}

function returnLink(url: string): string {
  return `<p><a href="${escapeHtml(url)}">Return to Parley</a></p>`;
}
