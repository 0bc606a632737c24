// Checkout against Stripe: the real stripe SDK inside billing talks to the local fake Stripe API over
// HTTP, so these tests see the form-encoded requests exactly as Stripe would receive them.
import { DEVELOPMENT_SERVICE_SECRET, ROLE_HEADER, signServiceToken } from '@parley/common/service-auth.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Code, type Client } from '@connectrpc/connect';
import { BillingService, CheckoutProduct, Plan } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';
import {
  FAKE_PRICE_PRO,
  FAKE_PRICE_TOPUP,
  FAKE_STRIPE_KEY,
  startFakeStripe,
  stripeEventPayload,
  type FakeStripe,
} from '@parley/common/testing/fake-stripe.ts';
import Stripe from 'stripe';
import { applyStripeEvent } from '../../src/payments/apply-stripe-event.ts';
import { expectLedgerInvariant } from './ledger.ts';
import { startBilling, type Billing } from './harness.ts';

const SUCCESS_URL = 'http://localhost:8080/dashboard?checkout=success';
const CANCEL_URL = 'http://localhost:8080/pricing';

let fake: FakeStripe;
let billing: Billing;
let client: Client<typeof BillingService>;

beforeAll(async () => {
  fake = await startFakeStripe();
  billing = await startBilling({
    env: {
      STRIPE_SECRET_KEY: FAKE_STRIPE_KEY,
      STRIPE_API_BASE: fake.url,
      STRIPE_PRICE_PRO: FAKE_PRICE_PRO,
      STRIPE_PRICE_TOPUP: FAKE_PRICE_TOPUP,
    },
  });
  client = createServiceClient(BillingService, billing.url, { timeoutMs: 20_000 });
});

afterAll(async () => {
  await billing?.stop();
  await fake?.close();
});

beforeEach(() => fake.setBehaviour({ failWith: null, delayMs: 0 }));

const customerRequestsFor = (ownerId: string) =>
  fake.requestsTo('POST', '/v1/customers').filter((r) => (r.params.metadata as Record<string, string>)?.userId === ownerId);
const sessionRequestsFor = (ownerId: string) =>
  fake.requestsTo('POST', '/v1/checkout/sessions').filter((r) => r.params.client_reference_id === ownerId);
const account = (ownerId: string) => billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId } });

describe('CreateCustomer', () => {
  it('creates one Stripe customer when 20 calls race for an owner without an account, and every call answers its id', async () => {
    // Slow Stripe down so the racing calls really overlap the first one's creation.
    fake.setBehaviour({ delayMs: 150 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => client.createCustomer({ ownerId: 'owner-race', email: 'race@example.com' })),
    );

    const ids = new Set(results.map((r) => r.customerId));
    expect(ids.size).toBe(1);
    const [customerId] = ids;
    expect(customerId).toMatch(/^cus_[A-Za-z0-9]+$/);
    expect(customerRequestsFor('owner-race')).toHaveLength(1);
    expect(fake.customers.get(customerId!)).toMatchObject({ email: 'race@example.com', metadata: { userId: 'owner-race' } });
    expect(customerRequestsFor('owner-race')[0]).toMatchObject({
      idempotencyKey: 'customer:owner-race',
      params: { email: 'race@example.com', metadata: { userId: 'owner-race' } },
    });

    // Stored on the account, which was opened on the way (with its signup credit in the ledger).
    const stored = await account('owner-race');
    expect(stored.stripeCustomerId).toBe(customerId);
    expect(stored.creditBalance.toFixed()).toBe('0.01');
    // Asked again later: the stored id, without a call to Stripe.
    expect((await client.createCustomer({ ownerId: 'owner-race' })).customerId).toBe(customerId);
    expect(customerRequestsFor('owner-race')).toHaveLength(1);
  });

  it('creates one Stripe customer when 20 calls race for an owner whose account exists', async () => {
    await client.getAccount({ ownerId: 'owner-race-open' });
    fake.setBehaviour({ delayMs: 150 });
    const results = await Promise.all(Array.from({ length: 20 }, () => client.createCustomer({ ownerId: 'owner-race-open' })));
    expect(new Set(results.map((r) => r.customerId)).size).toBe(1);
    expect(customerRequestsFor('owner-race-open')).toHaveLength(1);
    expect((await account('owner-race-open')).stripeCustomerId).toBe(results[0].customerId);
  });

  it('gets the customer Stripe already made under the same idempotency key (a crash between creating and storing it)', async () => {
    // As if an earlier attempt created the customer at Stripe and died before its transaction committed.
    const stripe = new Stripe(FAKE_STRIPE_KEY, { host: fake.host, port: fake.port, protocol: 'http' });
    const orphan = await stripe.customers.create(
      { email: 'crash@example.com', metadata: { userId: 'owner-crash' } },
      { idempotencyKey: 'customer:owner-crash' },
    );

    const { customerId } = await client.createCustomer({ ownerId: 'owner-crash', email: 'crash@example.com' });
    expect(customerId).toBe(orphan.id);
    expect([...fake.customers.values()].filter((c) => (c.metadata as Record<string, string>).userId === 'owner-crash')).toHaveLength(1);
  });

  it('answers UNAVAILABLE with a message for the user when Stripe fails, and stores nothing', async () => {
    fake.setBehaviour({ failWith: 400 });
    const err = await rpcError(client.createCustomer({ ownerId: 'owner-stripe-down' }));
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toBe('The payment provider is unavailable. Please try again.');
    expect(
      (await billing.parts.prisma.account.findUnique({ where: { ownerId: 'owner-stripe-down' } }))?.stripeCustomerId ?? null,
    ).toBeNull();

    fake.setBehaviour({ failWith: null });
    expect((await client.createCustomer({ ownerId: 'owner-stripe-down' })).customerId).toMatch(/^cus_/);
  });

  it('refuses a missing owner id', async () => {
    expect((await rpcError(client.createCustomer({ ownerId: ' ' }))).code).toBe(Code.InvalidArgument);
  });
});

describe('CreateCheckoutSession', () => {
  it('sells the pro plan as the server configures it: its price, quantity 1, tied to the owner', async () => {
    const { url, sessionId } = await client.createCheckoutSession({
      ownerId: 'owner-pro',
      email: 'pro@example.com',
      product: CheckoutProduct.PRO_SUBSCRIPTION,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    });
    const customerId = (await account('owner-pro')).stripeCustomerId;
    expect(customerId).toMatch(/^cus_/);

    const [request] = sessionRequestsFor('owner-pro');
    expect(request.params).toEqual({
      mode: 'subscription',
      line_items: [{ price: FAKE_PRICE_PRO, quantity: '1' }],
      customer: customerId,
      client_reference_id: 'owner-pro',
      metadata: { userId: 'owner-pro', type: 'subscription', plan: 'pro' },
      subscription_data: { metadata: { userId: 'owner-pro' } },
      success_url: SUCCESS_URL,
      cancel_url: CANCEL_URL,
    });
    // The form body as Stripe receives it, nested keys and all.
    expect(decodeURIComponent(request.rawBody)).toContain(`line_items[0][price]=${FAKE_PRICE_PRO}&line_items[0][quantity]=1`);
    expect(decodeURIComponent(request.rawBody)).toContain('metadata[userId]=owner-pro');

    expect(sessionId).toMatch(/^cs_test_/);
    expect(url).toBe(fake.checkoutSessions.get(sessionId)!.url);
    expect(fake.checkoutSessions.get(sessionId)).toMatchObject({ amount_total: 1000, mode: 'subscription', customer: customerId });
    expect(await billing.parts.prisma.checkoutSession.findUniqueOrThrow({ where: { id: sessionId } })).toMatchObject({
      ownerId: 'owner-pro',
      product: 'pro_subscription',
      customerId,
      amountCents: null,
      testMode: false,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
      completedAt: null,
    });
  });

  it('sells a credit top-up as a one-time payment of the top-up price, and a pro owner may buy one', async () => {
    await client.createCustomer({ ownerId: 'owner-topup' });
    await billing.parts.prisma.account.update({ where: { ownerId: 'owner-topup' }, data: { plan: 'pro' } });
    const { sessionId } = await client.createCheckoutSession({
      ownerId: 'owner-topup',
      product: CheckoutProduct.CREDIT_TOPUP,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    });

    const requests = sessionRequestsFor('owner-topup');
    expect(requests).toHaveLength(1);
    expect(requests[0].params).toEqual({
      mode: 'payment',
      line_items: [{ price: FAKE_PRICE_TOPUP, quantity: '1' }],
      customer: (await account('owner-topup')).stripeCustomerId,
      client_reference_id: 'owner-topup',
      metadata: { userId: 'owner-topup', type: 'credit_topup' },
      success_url: SUCCESS_URL,
      cancel_url: CANCEL_URL,
    });
    expect(fake.checkoutSessions.get(sessionId)).toMatchObject({ amount_total: 500, mode: 'payment' });
    // Both calls found the customer made above.
    expect(customerRequestsFor('owner-topup')).toHaveLength(1);
  });

  it('takes no price from the caller: extra fields in the request change nothing that is sold', async () => {
    // The request as JSON with fields a client might try; the contract has no place for them.
    const res = await fetch(`${billing.url}/parley.billing.v1.BillingService/CreateCheckoutSession`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${signServiceToken({ caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET })}`,
        // The gateway acting for the workspace's owner.
        [ROLE_HEADER]: 'owner',
      },
      body: JSON.stringify({
        ownerId: 'owner-forger',
        product: 'CHECKOUT_PRODUCT_CREDIT_TOPUP',
        successUrl: SUCCESS_URL,
        cancelUrl: CANCEL_URL,
        price: 'price_cheap',
        lineItems: [{ price: 'price_cheap', quantity: 100 }],
        amountCents: 1,
      }),
    });
    // Whether the unknown fields are refused or ignored, no session is ever made with them.
    if (res.ok) {
      const [request] = sessionRequestsFor('owner-forger');
      expect(request.params.line_items).toEqual([{ price: FAKE_PRICE_TOPUP, quantity: '1' }]);
    } else {
      expect(res.status).toBe(400);
      expect(sessionRequestsFor('owner-forger')).toHaveLength(0);
    }
    const prices = fake
      .requestsTo('POST', '/v1/checkout/sessions')
      .flatMap((r) => (r.params.line_items as { price: string; quantity: string }[]).map((i) => `${i.price}×${i.quantity}`));
    expect(new Set(prices)).toEqual(new Set([`${FAKE_PRICE_PRO}×1`, `${FAKE_PRICE_TOPUP}×1`]));
  });

  it('refuses the pro plan to an owner who already has it, without calling Stripe', async () => {
    await client.createCustomer({ ownerId: 'owner-already-pro' });
    await billing.parts.prisma.account.update({ where: { ownerId: 'owner-already-pro' }, data: { plan: 'pro' } });
    const err = await rpcError(
      client.createCheckoutSession({
        ownerId: 'owner-already-pro',
        product: CheckoutProduct.PRO_SUBSCRIPTION,
        successUrl: SUCCESS_URL,
        cancelUrl: CANCEL_URL,
      }),
    );
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.rawMessage).toBe('You are already on the Pro plan.');
    expect(sessionRequestsFor('owner-already-pro')).toHaveLength(0);
  });

  it.each([
    ['no product', { product: CheckoutProduct.UNSPECIFIED }, /product/],
    ['a javascript: success URL', { successUrl: 'javascript:alert(1)' }, /success_url/],
    ['a relative cancel URL', { cancelUrl: '/pricing' }, /cancel_url/],
    ['a data: cancel URL', { cancelUrl: 'data:text/html,hi' }, /cancel_url/],
  ])('refuses %s with INVALID_ARGUMENT, without calling Stripe', async (_name, change, message) => {
    const before = fake.requests.length;
    const err = await rpcError(
      client.createCheckoutSession({
        ownerId: 'owner-bad-input',
        product: CheckoutProduct.CREDIT_TOPUP,
        successUrl: SUCCESS_URL,
        cancelUrl: CANCEL_URL,
        ...change,
      }),
    );
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toMatch(message);
    expect(fake.requests.length).toBe(before);
  });

  it('answers UNAVAILABLE when Stripe refuses the session, and stores none', async () => {
    await client.createCustomer({ ownerId: 'owner-refused' });
    fake.setBehaviour({ failWith: 400 });
    const err = await rpcError(
      client.createCheckoutSession({
        ownerId: 'owner-refused',
        product: CheckoutProduct.CREDIT_TOPUP,
        successUrl: SUCCESS_URL,
        cancelUrl: CANCEL_URL,
      }),
    );
    expect(err.code).toBe(Code.Unavailable);
    expect(await billing.parts.prisma.checkoutSession.count({ where: { ownerId: 'owner-refused' } })).toBe(0);
  });

  it('GetBillingOptions says checkout takes real payments', async () => {
    expect(await client.getBillingOptions({})).toMatchObject({ testMode: false, topUpAmount: '5', proPlanPrice: '10', proPlanCredit: '2' });
  });

  it('GetTestCheckoutSession is refused with a real Stripe key', async () => {
    expect((await rpcError(client.getTestCheckoutSession({ sessionId: 'cs_test_local_x' }))).code).toBe(Code.FailedPrecondition);
  });
});

describe('a checkout from start to Stripe event', () => {
  it('the events of a session billing created make its owner pro with the pro credit, and the cancellation makes them free with the credit kept', async () => {
    const { sessionId } = await client.createCheckoutSession({
      ownerId: 'owner-loop',
      product: CheckoutProduct.PRO_SUBSCRIPTION,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    });
    const completed = fake.completeCheckoutSession(sessionId);
    const apply = (event: ReturnType<FakeStripe['completeCheckoutSession']>) =>
      applyStripeEvent(billing.parts.payments, { eventId: event.id, type: event.type, payload: stripeEventPayload(event) });

    expect(await apply(completed)).toBe('applied');
    expect(await account('owner-loop')).toMatchObject({ plan: 'pro' });
    expect((await account('owner-loop')).creditBalance.toFixed()).toBe('2.01');
    expect((await client.getAccount({ ownerId: 'owner-loop' })).account?.plan).toBe(Plan.PRO);
    expect((await billing.parts.prisma.checkoutSession.findUniqueOrThrow({ where: { id: sessionId } })).completedAt).not.toBeNull();

    // The subscription carries the owner in its metadata (subscription_data), so its own events find them.
    const subscriptionId = completed.data.object.subscription as string;
    expect(fake.subscriptions.get(subscriptionId)?.metadata).toEqual({ userId: 'owner-loop' });
    expect(await apply(fake.cancelSubscription(subscriptionId))).toBe('applied');
    expect(await account('owner-loop')).toMatchObject({ plan: 'free' });
    expect((await account('owner-loop')).creditBalance.toFixed()).toBe('2.01');

    // Cancelled, the owner may buy the pro plan again.
    await client.createCheckoutSession({
      ownerId: 'owner-loop',
      product: CheckoutProduct.PRO_SUBSCRIPTION,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    });
    expect(sessionRequestsFor('owner-loop')).toHaveLength(2);
  });

  it('a paid top-up credits exactly what Stripe charged', async () => {
    const { sessionId } = await client.createCheckoutSession({
      ownerId: 'owner-loop-topup',
      product: CheckoutProduct.CREDIT_TOPUP,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    });
    const event = fake.completeCheckoutSession(sessionId);
    expect(
      await applyStripeEvent(billing.parts.payments, { eventId: event.id, type: event.type, payload: stripeEventPayload(event) }),
    ).toBe('applied');
    expect((await account('owner-loop-topup')).creditBalance.toFixed()).toBe('5.01');
    expect(await account('owner-loop-topup')).toMatchObject({ plan: 'free' });
    await expectLedgerInvariant(billing.parts.prisma);
  });
});
