// POST /api/payment/{create-customer,create-checkout-session} (docs/product.md, Plans, credit and checkout) for the signed-in owner,
// GET /api/payment/options (what is sold, and whether checkout is in test mode), and
// POST /api/payment/webhook, where Stripe delivers its events (verified on the raw body, queued for
// billing, acknowledged at once).
import express, { type RequestHandler } from 'express';
import { invalid } from '@parley/common/rpc-errors.ts';
import { billingOptions, createCheckoutSession, createCustomer, type CheckoutRequest } from './checkout.ts';
import { money } from '../usage/usage.ts';
import type { StripeEventIntake } from './stripe-events.ts';
import { operation, readWith, type Operation } from '../../http/operations.ts';
import { jsonBody, optionalString, optionalText, text, type JsonObject } from '../../http/input.ts';

/** Stripe's events can be larger than the JSON limit of the app's own calls. */
const WEBHOOK_BODY_LIMIT = '1mb';

/** The operation table (http/operations.ts); Stripe's webhook, read raw, is webhookHandlers below. */
export const paymentOperations: Operation[] = [
  // Public, like the pricing page that shows it.
  operation({ method: 'GET', path: '/api/payment/options', who: 'public' }, async ({ app: { clients } }) => {
    const options = await billingOptions(clients);
    return {
      testMode: options.testMode,
      topUpAmount: money(options.topUpAmount),
      proPlanPrice: money(options.proPlanPrice),
      proPlanCredit: money(options.proPlanCredit),
    };
  }),
  operation(
    { method: 'POST', path: '/api/payment/create-customer', who: 'session', permission: 'billing:manage' },
    async ({ app: { clients }, member }) => ({ customerId: await createCustomer(clients, member) }),
  ),
  // Who is asking is settled before the payload is judged: signed out is 401, whatever it says.
  operation(
    {
      method: 'POST',
      path: '/api/payment/create-checkout-session',
      who: 'session',
      permission: 'billing:manage',
      body: jsonBody({
        mode: text('mode'),
        metadata: readWith(metadataField),
        successUrl: optionalText('successUrl'),
        cancelUrl: optionalText('cancelUrl'),
      }),
    },
    async ({ app: { clients, publicUrl }, member, body }) => ({
      url: await createCheckoutSession(clients, member, body satisfies CheckoutRequest, publicUrl),
    }),
  ),
];

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

function metadataField(value: unknown): CheckoutRequest['metadata'] {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('metadata must be an object');
  const metadata = value as JsonObject;
  // null reads as absent, as GraphQL's null does.
  const field = (name: string) => (metadata[name] === null ? undefined : optionalString(metadata, name));
  return { type: field('type'), plan: field('plan') };
}
