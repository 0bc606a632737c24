// POST /api/payment/{create-customer,create-checkout-session} (docs/product.md, Plans, credit and checkout) for the signed-in owner,
// GET /api/payment/options (what is sold, and whether checkout is in test mode), and
// POST /api/payment/webhook, where Stripe delivers its events (verified on the raw body, queued for
// billing, acknowledged at once).
import express, { Router, type RequestHandler } from 'express';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';
import { billingOptions, createCheckoutSession, createCustomer, type CheckoutRequest } from './checkout.ts';
import { routeMember } from '../../access/members.ts';
import { money } from '../usage/usage.ts';
import type { StripeEventIntake } from './stripe-events.ts';
import { jsonObject, optionalString, stringField, type JsonObject } from '../../http/input.ts';

/** Stripe's events can be larger than the JSON limit of the app's own calls. */
const WEBHOOK_BODY_LIMIT = '1mb';

export function paymentRoutes(clients: Clients, opts: { publicUrl: string }): Router {
  const router = Router();

  // Public, like the pricing page that shows it.
  router.get('/options', async (_req, res) => {
    const options = await billingOptions(clients);
    res.json({
      testMode: options.testMode,
      topUpAmount: money(options.topUpAmount),
      proPlanPrice: money(options.proPlanPrice),
      proPlanCredit: money(options.proPlanCredit),
    });
  });

  router.post('/create-customer', async (req, res) => {
    res.json({ customerId: await createCustomer(clients, await routeMember(clients, req)) });
  });

  router.post('/create-checkout-session', async (req, res) => {
    // Who is asking is settled before the payload is judged: signed out is 401, whatever it says.
    const member = await routeMember(clients, req);
    const body = jsonObject(req.body);
    const checkout: CheckoutRequest = {
      mode: stringField(body, 'mode'),
      metadata: metadataField(body),
      successUrl: optionalString(body, 'successUrl'),
      cancelUrl: optionalString(body, 'cancelUrl'),
    };
    res.json({ url: await createCheckoutSession(clients, member, checkout, opts.publicUrl) });
  });

  return router;
}

/** Stripe's deliveries: the raw body, exactly as signed (its own parser, before any JSON parsing). */
export function webhookHandlers(intake: StripeEventIntake): RequestHandler[] {
  return [
    express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }),
    async (req, res) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      await intake.receive(raw, req.header('stripe-signature'));
      res.json({ received: true });
    },
  ];
}

function metadataField(body: JsonObject): CheckoutRequest['metadata'] {
  const value = body.metadata;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('metadata must be an object');
  const metadata = value as JsonObject;
  // null reads as absent, as GraphQL's null does.
  const field = (name: string) => (metadata[name] === null ? undefined : optionalString(metadata, name));
  return { type: field('type'), plan: field('plan') };
}
