// POST /api/payment/{create-customer,create-checkout-session} (docs/product.md, Plans, credit and checkout) for the signed-in owner,
// GET /api/payment/options (what is sold, and whether checkout is in test mode), and
// POST /api/payment/webhook, where Stripe delivers its events (verified on the raw body, queued for
// billing, acknowledged at once).
import express from 'express';
import { invalid } from '@parley/common/rpc-errors.ts';
import { billingOptions, createCheckoutSession, createCustomer, type CheckoutRequest } from './checkout.ts';
import { money } from '../usage/usage.ts';
import { NOT_ACCEPTED_MESSAGE } from './stripe-events.ts';
import { HttpError } from '../../http/errors.ts';
import { operation, readBodyWith, readWith, type Operation } from '../../http/operations.ts';
import { jsonBody, optionalString, optionalText, text, type JsonObject } from '../../http/input.ts';

/** Stripe's events can be larger than the JSON limit of the app's own calls. */
const WEBHOOK_BODY_LIMIT = '1mb';
const rawWebhookBody = express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT });

/** The operation table (http/operations.ts). */
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
  // Stripe's deliveries: the body read raw by the row itself, so the signature is checked over the bytes Stripe sent.
  operation(
    { method: 'POST', path: '/api/payment/webhook', who: 'public', readsOwnBody: true },
    async ({ req, res, app: { stripeEvents } }) => {
      if (!stripeEvents) throw new HttpError(503, NOT_ACCEPTED_MESSAGE);
      await readBodyWith(rawWebhookBody, req, res);
      await stripeEvents.receive(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), req.header('stripe-signature'));
      return { received: true };
    },
  ),
];

function metadataField(value: unknown): CheckoutRequest['metadata'] {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('metadata must be an object');
  const metadata = value as JsonObject;
  // null reads as absent, as GraphQL's null does.
  const field = (name: string) => (metadata[name] === null ? undefined : optionalString(metadata, name));
  return { type: field('type'), plan: field('plan') };
}
