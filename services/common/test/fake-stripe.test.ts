// The fake Stripe API as the real stripe SDK sees it, and events signed so the SDK verifies them.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import {
  FAKE_PRICE_PRO,
  FAKE_PRICE_TOPUP,
  FAKE_STRIPE_KEY,
  parseStripeForm,
  signedStripeEvent,
  signStripePayload,
  startFakeStripe,
  stripeEventPayload,
  subscriptionCheckoutCompletedEvent,
  subscriptionDeletedEvent,
  subscriptionUpdatedEvent,
  topUpCheckoutCompletedEvent,
  type FakeStripe,
} from '../src/testing/fake-stripe.ts';

let fake: FakeStripe;
let stripe: Stripe;

beforeAll(async () => {
  fake = await startFakeStripe();
  stripe = new Stripe(FAKE_STRIPE_KEY, { host: fake.host, port: fake.port, protocol: 'http', maxNetworkRetries: 0 });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

describe('parseStripeForm', () => {
  it('nests bracketed keys and turns indexed hashes into arrays, as Stripe does', () => {
    expect(
      parseStripeForm(
        'mode=payment&line_items[0][price]=p&line_items[0][quantity]=1&line_items[1][price]=q&metadata[userId]=u%201&expand[]=a&expand[]=b',
      ),
    ).toEqual({
      mode: 'payment',
      line_items: [{ price: 'p', quantity: '1' }, { price: 'q' }],
      metadata: { userId: 'u 1' },
      expand: ['a', 'b'],
    });
  });

  it('refuses a malformed key', () => {
    expect(() => parseStripeForm('metadata[userId=1')).toThrow(/Invalid parameter name/);
  });
});

describe('the fake Stripe API through the stripe SDK', () => {
  it('creates a customer and a checkout session, recording the form-encoded requests', async () => {
    const customer = await stripe.customers.create({ email: 'a@example.com', metadata: { userId: 'u1' } });
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: FAKE_PRICE_PRO, quantity: 1 }],
      customer: customer.id,
      client_reference_id: 'u1',
      metadata: { userId: 'u1', type: 'subscription', plan: 'pro' },
      subscription_data: { metadata: { userId: 'u1' } },
      success_url: 'http://localhost:8080/dashboard',
      cancel_url: 'http://localhost:8080/pricing',
    });
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'subscription',
      customer: customer.id,
      amount_total: 1000,
      status: 'open',
      payment_status: 'unpaid',
    });
    expect(session.url).toBe(`${fake.url}/c/pay/${session.id}`);
    expect((await stripe.checkout.sessions.retrieve(session.id)).id).toBe(session.id);

    const [request] = fake.requestsTo('POST', '/v1/checkout/sessions');
    expect(request.params.line_items).toEqual([{ price: FAKE_PRICE_PRO, quantity: '1' }]);
    expect(request.rawBody).toContain('line_items[0][price]=');
    expect(request.idempotencyKey).toMatch(/^stripe-node-retry-/);
    expect(request.stripeVersion).toBeTruthy();
  });

  it('replays the first answer for a repeated Idempotency-Key, and refuses the key with other parameters', async () => {
    const first = await stripe.customers.create({ email: 'x@example.com' }, { idempotencyKey: 'k1' });
    const again = await stripe.customers.create({ email: 'x@example.com' }, { idempotencyKey: 'k1' });
    expect(again.id).toBe(first.id);
    expect(fake.customers.size).toBe(1);
    const err = await stripe.customers.create({ email: 'other@example.com' }, { idempotencyKey: 'k1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });

  it('refuses a wrong key, an unknown price or customer, and a recurring price in payment mode, as Stripe does', async () => {
    const wrongKey = new Stripe('sk_test_wrong', { host: fake.host, port: fake.port, protocol: 'http', maxNetworkRetries: 0 });
    await expect(wrongKey.customers.create({})).rejects.toBeInstanceOf(Stripe.errors.StripeAuthenticationError);

    const session = (params: Stripe.Checkout.SessionCreateParams) =>
      stripe.checkout.sessions.create({ success_url: 'http://localhost:8080/', ...params });
    await expect(session({ mode: 'payment', line_items: [{ price: 'price_nope', quantity: 1 }] })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'resource_missing',
    });
    await expect(session({ mode: 'payment', line_items: [{ price: FAKE_PRICE_PRO, quantity: 1 }] })).rejects.toThrow(/recurring price/);
    await expect(session({ mode: 'subscription', line_items: [{ price: FAKE_PRICE_TOPUP, quantity: 1 }] })).rejects.toThrow(
      /recurring price/,
    );
    await expect(
      session({ mode: 'payment', customer: 'cus_nope', line_items: [{ price: FAKE_PRICE_TOPUP, quantity: 1 }] }),
    ).rejects.toThrow(/No such customer/);
    await expect(
      session({ mode: 'payment', line_items: [{ price: FAKE_PRICE_TOPUP, quantity: 1 }], subscription_data: { metadata: { a: 'b' } } }),
    ).rejects.toThrow(/subscription_data/);
    expect(fake.checkoutSessions.size).toBe(0);
  });

  it('completes a checkout into the events Stripe would send, and cancels the subscription it made', async () => {
    const customer = await stripe.customers.create({});
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: FAKE_PRICE_PRO, quantity: 1 }],
      customer: customer.id,
      metadata: { userId: 'u2' },
      subscription_data: { metadata: { userId: 'u2' } },
      success_url: 'http://localhost:8080/',
    });
    const completed = fake.completeCheckoutSession(session.id);
    expect(completed).toMatchObject({
      type: 'checkout.session.completed',
      data: { object: { id: session.id, status: 'complete', payment_status: 'paid' } },
    });
    const subscriptionId = completed.data.object.subscription as string;
    expect(await stripe.subscriptions.retrieve(subscriptionId)).toMatchObject({
      status: 'active',
      metadata: { userId: 'u2' },
      customer: customer.id,
    });

    expect(fake.cancelSubscription(subscriptionId)).toMatchObject({
      type: 'customer.subscription.deleted',
      data: { object: { id: subscriptionId, status: 'canceled' } },
    });
    expect((await stripe.subscriptions.update(subscriptionId, { metadata: { note: 'x' } })).metadata).toEqual({ userId: 'u2', note: 'x' });
  });

  it('opens a customer portal session for a known customer only', async () => {
    const customer = await stripe.customers.create({});
    const portal = await stripe.billingPortal.sessions.create({ customer: customer.id, return_url: 'http://localhost:8080/account' });
    expect(portal).toMatchObject({ object: 'billing_portal.session', customer: customer.id, return_url: 'http://localhost:8080/account' });
    expect(portal.id).toMatch(/^bps_/);
    expect(portal.url).toBe(`${fake.url}/p/session/${portal.id}`);
    expect(fake.portalSessions.get(portal.id)).toEqual(portal);
    expect(fake.requestsTo('POST', '/v1/billing_portal/sessions')[0].params).toEqual({
      customer: customer.id,
      return_url: 'http://localhost:8080/account',
    });

    await expect(stripe.billingPortal.sessions.create({ customer: 'cus_nope' })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'resource_missing',
    });
    await expect(stripe.billingPortal.sessions.create({} as Stripe.BillingPortal.SessionCreateParams)).rejects.toThrow(
      /Missing required param: customer/,
    );
    expect(fake.portalSessions.size).toBe(1);
  });

  it('deletes a customer as Stripe does: their subscriptions canceled, then only `deleted: true` left, and a second delete is resource_missing', async () => {
    const customer = await stripe.customers.create({ email: 'gone@example.com', metadata: { userId: 'u3' } });
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: FAKE_PRICE_PRO, quantity: 1 }],
      customer: customer.id,
      success_url: 'http://localhost:8080/',
    });
    const subscriptionId = fake.completeCheckoutSession(session.id).data.object.subscription as string;
    const other = await stripe.customers.create({});

    expect(await stripe.customers.del(customer.id)).toEqual({ id: customer.id, object: 'customer', deleted: true });
    expect(await stripe.subscriptions.retrieve(subscriptionId)).toMatchObject({ status: 'canceled', customer: customer.id });
    // Nothing personal is left at the fake: no email, no metadata.
    expect(await stripe.customers.retrieve(customer.id)).toEqual({ id: customer.id, object: 'customer', deleted: true });
    expect(fake.customers.get(other.id)).toMatchObject({ id: other.id, object: 'customer' });
    expect(fake.customers.get(other.id)!.deleted).toBeUndefined();

    await expect(stripe.customers.del(customer.id)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'resource_missing',
      statusCode: 404,
    });
    await expect(stripe.customers.del('cus_nope')).rejects.toMatchObject({ code: 'resource_missing' });
    // A deleted customer can no longer check out or open the portal.
    await expect(stripe.billingPortal.sessions.create({ customer: customer.id })).rejects.toMatchObject({ code: 'resource_missing' });
    await expect(
      stripe.checkout.sessions.create({
        mode: 'payment',
        customer: customer.id,
        line_items: [{ price: FAKE_PRICE_TOPUP, quantity: 1 }],
        success_url: 'http://localhost:8080/',
      }),
    ).rejects.toThrow(/No such customer/);
  });

  it('answers every request with the failure it is told to, until told otherwise', async () => {
    const customer = await stripe.customers.create({});
    fake.setBehaviour({ failWith: 500 });
    await expect(stripe.customers.del(customer.id)).rejects.toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(fake.customers.get(customer.id)!.deleted).toBeUndefined();
    fake.setBehaviour({ failWith: null });
    expect((await stripe.customers.del(customer.id)).deleted).toBe(true);
  });
});

describe('events signed as Stripe signs them', () => {
  const secret = 'whsec_test_secret';

  it('builds each event so the SDK verifies and parses it', () => {
    const events = [
      subscriptionCheckoutCompletedEvent({ userId: 'u', customerId: 'cus_1', subscriptionId: 'sub_1' }),
      topUpCheckoutCompletedEvent({ userId: 'u', customerId: 'cus_1', amountTotal: 500 }),
      subscriptionDeletedEvent({ subscriptionId: 'sub_1', customerId: 'cus_1', userId: 'u' }),
      subscriptionUpdatedEvent({ subscriptionId: 'sub_1', customerId: 'cus_1', status: 'past_due', previousStatus: 'active' }),
    ];
    for (const event of events) {
      const { payload, signature } = signedStripeEvent(event, secret);
      expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      const verified = stripe.webhooks.constructEvent(payload, signature, secret);
      expect(verified.id).toBe(event.id);
      expect(verified.type).toBe(event.type);
    }
    expect(events[1].data.object).toMatchObject({
      mode: 'payment',
      amount_total: 500,
      currency: 'usd',
      payment_status: 'paid',
      metadata: { userId: 'u', type: 'credit_topup' },
    });
    expect(events[0].data.object).toMatchObject({
      mode: 'subscription',
      subscription: 'sub_1',
      client_reference_id: 'u',
      metadata: { type: 'subscription', plan: 'pro' },
    });
  });

  it('a wrong secret, a changed body or an old timestamp fails verification', () => {
    const payload = stripeEventPayload(topUpCheckoutCompletedEvent({ userId: 'u', customerId: 'cus_1', amountTotal: 500 }));
    const verify = (body: string, header: string) => () => stripe.webhooks.constructEvent(body, header, secret);
    expect(verify(payload, signStripePayload(payload, 'whsec_other'))).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(verify(payload.replace('500', '50000'), signStripePayload(payload, secret))).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    expect(verify(payload, signStripePayload(payload, secret, tenMinutesAgo))).toThrow(/tolerance/);
  });
});
