// /api/payment/* against the real stack with billing talking to a local fake of Stripe's API through
// the real stripe SDK: one customer per owner however often (and concurrently) it is asked for, a
// checkout whose product the server decides and whose return URLs stay on the product's origin, and
// the webhook verifying Stripe's signature on the raw body before billing applies the event once.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import {
  FAKE_PRICE_PRO,
  FAKE_PRICE_TOPUP,
  FAKE_STRIPE_KEY,
  signStripePayload,
  startFakeStripe,
  stripeEvent,
  stripeEventPayload,
  type FakeStripe,
  type StripeEventJson,
} from '@parley/common/testing/fake-stripe.ts';
import { api, gql, startGateway, type Stack, startStack } from './stack.ts';
import { type Owner, registerOwner } from './chatbot-fixtures.ts';
import { accountRow, billingQuery, sleep, units, waitFor } from './billing-fixtures.ts';
import { MISMATCHED_METADATA_MESSAGE, UNKNOWN_MODE_MESSAGE } from '../src/features/billing/checkout.ts';
import {
  INVALID_SIGNATURE_MESSAGE,
  MISSING_SIGNATURE_MESSAGE,
  NOT_ACCEPTED_MESSAGE,
  STALE_SIGNATURE_MESSAGE,
} from '../src/features/billing/stripe-events.ts';

let fake: FakeStripe;
let stack: Stack;
let redis: Redis;
let stripeQueue: Queue;

beforeAll(async () => {
  fake = await startFakeStripe();
  stack = await startStack({
    billingEnv: {
      STRIPE_SECRET_KEY: FAKE_STRIPE_KEY,
      STRIPE_API_BASE: fake.url,
      STRIPE_PRICE_PRO: FAKE_PRICE_PRO,
      STRIPE_PRICE_TOPUP: FAKE_PRICE_TOPUP,
    },
  });
  redis = createRedis(stack.redisUrl);
  stripeQueue = new Queue(QUEUES.stripeEvents, { connection: redis, prefix: stack.queuePrefix });
}, 120_000);

afterAll(async () => {
  await stripeQueue?.close();
  await redis?.quit();
  await stack?.close();
  await fake?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);
const PUBLIC = () => stack.publicUrl;
const proCheckout = {
  mode: 'subscription',
  lineItems: [{ price: 'price_whatever_the_client_says', quantity: 99 }],
  metadata: { type: 'subscription', plan: 'pro' },
};
const topUpCheckout = { mode: 'payment', lineItems: [{ price: FAKE_PRICE_PRO, quantity: 7 }], metadata: { type: 'credit_topup' } };

const customersOf = (owner: Owner) =>
  [...fake.customers.values()].filter((c) => (c.metadata as Record<string, string>).userId === owner.userId);
const sessionIdOf = (url: string) => new URL(url).pathname.split('/').pop()!;

describe('POST /api/payment/create-customer', () => {
  it("creates the owner's Stripe customer with their email, once; later calls answer the same id, never cached", async () => {
    const owner = await registerOwner(stack, 'customer');
    const first = await call('/api/payment/create-customer', { method: 'POST', token: owner.token });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ customerId: expect.stringMatching(/^cus_/) });
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(customersOf(owner)).toEqual([expect.objectContaining({ id: first.body.customerId, email: owner.email })]);
    const again = await call('/api/payment/create-customer', { method: 'POST', token: owner.token });
    expect(again.body).toEqual(first.body);
    expect(customersOf(owner)).toHaveLength(1);
  });

  it('creates one customer for ten concurrent calls', async () => {
    const owner = await registerOwner(stack, 'concurrent');
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call('/api/payment/create-customer', { method: 'POST', token: owner.token })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(results.map((r) => r.body.customerId)).size).toBe(1);
    expect(customersOf(owner)).toHaveLength(1);
    expect(customersOf(owner)[0]!.id).toBe(results[0]!.body.customerId);
  });

  it('answers 401 without a valid token, and asks Stripe nothing', async () => {
    const before = fake.requests.length;
    for (const token of [undefined, 'not-a-token']) {
      const res = await call('/api/payment/create-customer', { method: 'POST', token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: expect.stringMatching(/\S/) });
    }
    expect(fake.requests.length).toBe(before);
  });
});

describe('POST /api/payment/create-checkout-session', () => {
  it("sells the pro plan at the server's price, quantity 1, tied to the owner, whatever the client's line items say", async () => {
    const owner = await registerOwner(stack, 'checkout-pro');
    expect((await call('/api/payment/create-customer', { method: 'POST', token: owner.token })).status).toBe(200);
    const res = await call('/api/payment/create-checkout-session', {
      body: { ...proCheckout, successUrl: `${PUBLIC()}/dashboard?upgraded=1`, cancelUrl: `${PUBLIC()}/pricing` },
      token: owner.token,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.body)).toEqual(['url']);
    const session = fake.checkoutSessions.get(sessionIdOf(res.body.url))!;
    expect(session).toBeDefined();
    expect(res.body.url).toBe(session.url);
    const [sent] = fake.requestsTo('POST', '/v1/checkout/sessions').filter((r) => r.params.client_reference_id === owner.userId);
    expect(sent!.params).toMatchObject({
      mode: 'subscription',
      line_items: [{ price: FAKE_PRICE_PRO, quantity: '1' }],
      customer: customersOf(owner)[0]!.id,
      client_reference_id: owner.userId,
      metadata: { userId: owner.userId, type: 'subscription', plan: 'pro' },
      success_url: `${PUBLIC()}/dashboard?upgraded=1`,
      cancel_url: `${PUBLIC()}/pricing`,
    });
    expect(session).toMatchObject({ amount_total: 1000, mode: 'subscription' });
  });

  it('sells a credit top-up at its own price for mode payment with type credit_topup, returning to the dashboard and pricing by default', async () => {
    const owner = await registerOwner(stack, 'checkout-topup');
    const res = await call('/api/payment/create-checkout-session', { body: topUpCheckout, token: owner.token });
    expect(res.status).toBe(200);
    const [sent] = fake.requestsTo('POST', '/v1/checkout/sessions').filter((r) => r.params.client_reference_id === owner.userId);
    expect(sent!.params).toMatchObject({
      mode: 'payment',
      line_items: [{ price: FAKE_PRICE_TOPUP, quantity: '1' }],
      metadata: { userId: owner.userId, type: 'credit_topup' },
      success_url: `${PUBLIC()}/dashboard`,
      cancel_url: `${PUBLIC()}/pricing`,
    });
    expect((sent!.params.metadata as Record<string, string>).plan).toBeUndefined();
    expect(fake.checkoutSessions.get(sessionIdOf(res.body.url))).toMatchObject({ amount_total: 500, mode: 'payment' });
  });

  it.each([
    ['successUrl', 'https://evil.example/dashboard'],
    ['successUrl', '//evil.example/dashboard'],
    ['successUrl', '/dashboard'],
    ['cancelUrl', 'https://localhost:8080.evil.example/pricing'],
    ['cancelUrl', 'http://localhost:9999/pricing'],
    ['cancelUrl', 'javascript:alert(1)'],
  ])('refuses %s %j with 400 and never reaches Stripe (no open redirect)', async (field, value) => {
    const owner = await registerOwner(stack, 'redirect');
    const before = fake.requests.length;
    const res = await call('/api/payment/create-checkout-session', { body: { ...proCheckout, [field]: value }, token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: `${field} must be an address on ${new URL(PUBLIC()).origin}` });
    expect(fake.requests.length).toBe(before);
  });

  it.each([
    [{ ...proCheckout, mode: 'setup' }, UNKNOWN_MODE_MESSAGE],
    [{ ...proCheckout, mode: undefined }, UNKNOWN_MODE_MESSAGE],
    [{}, UNKNOWN_MODE_MESSAGE],
    [{ ...proCheckout, metadata: { type: 'credit_topup' } }, MISMATCHED_METADATA_MESSAGE],
    [{ ...topUpCheckout, metadata: { type: 'subscription', plan: 'pro' } }, MISMATCHED_METADATA_MESSAGE],
    [{ mode: 'payment' }, MISMATCHED_METADATA_MESSAGE],
    [{ ...proCheckout, mode: 42 }, 'mode must be a string'],
    [{ ...proCheckout, metadata: 'pro' }, 'metadata must be an object'],
    [{ ...proCheckout, successUrl: 7 }, 'successUrl must be a string'],
  ])('answers %j with 400 %j', async (body, message) => {
    const owner = await registerOwner(stack, 'bad-checkout');
    const before = fake.requests.length;
    const res = await call('/api/payment/create-checkout-session', { body, token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
    expect(fake.requests.length).toBe(before);
  });

  it('answers 401 to a signed-out caller, whatever the payload', async () => {
    for (const body of [proCheckout, { mode: 'nonsense' }]) {
      const res = await call('/api/payment/create-checkout-session', { body });
      expect(res.status).toBe(401);
    }
  });

  it('answers 503 with a clear message when Stripe is down', async () => {
    const owner = await registerOwner(stack, 'stripe-down');
    fake.setBehaviour({ failWith: 500 });
    try {
      const res = await call('/api/payment/create-checkout-session', { body: topUpCheckout, token: owner.token });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ message: expect.stringMatching(/\S/) });
      expect(res.body.message).not.toMatch(/Fake failure|api_error/);
    } finally {
      fake.setBehaviour({ failWith: null });
    }
  });
});

describe('GET /api/payment/options with real Stripe', () => {
  it('says checkout is not in test mode', async () => {
    const res = await call('/api/payment/options');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ testMode: false, topUpAmount: expect.any(Number), proPlanPrice: expect.any(Number), proPlanCredit: 2 });
    const graphql = await gql(stack.url, '{ billingOptions { testMode } }');
    expect(graphql.body).toEqual({ data: { billingOptions: { testMode: false } } });
  });
});

describe('the test-mode checkout page with real Stripe', () => {
  it('does not exist: 404 for a real session id, and Pay completes nothing', async () => {
    const owner = await registerOwner(stack, 'no-test-page');
    const res = await call('/api/payment/create-checkout-session', { body: proCheckout, token: owner.token });
    const sessionId = sessionIdOf(res.body.url);
    const page = await fetch(`${stack.url}/checkout/test/${sessionId}`);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('Checkout not found');
    const pay = await fetch(`${stack.url}/checkout/test/${sessionId}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(404);
    expect(await stripeQueue.getJob(`evt_test_${sessionId}`)).toBeUndefined();
  });
});

describe('GraphQL createCustomer and createCheckoutSession', () => {
  it('do what the REST paths do, with the same refusals', async () => {
    const owner = await registerOwner(stack, 'graphql-checkout');
    const customer = await gql(stack.url, 'mutation { createCustomer }', {}, owner.token);
    expect(customer.body).toEqual({ data: { createCustomer: true } });
    expect(customersOf(owner)).toHaveLength(1);

    const MUTATION = 'mutation Checkout($input: CreateCheckoutSessionInput!) { createCheckoutSession(input: $input) { url } }';
    const ok = await gql(stack.url, MUTATION, { input: { ...topUpCheckout, cancelUrl: `${PUBLIC()}/dashboard` } }, owner.token);
    expect(ok.body.errors).toBeUndefined();
    const session = fake.checkoutSessions.get(sessionIdOf(ok.body.data.createCheckoutSession.url))!;
    expect(session).toMatchObject({
      client_reference_id: owner.userId,
      mode: 'payment',
      amount_total: 500,
      cancel_url: `${PUBLIC()}/dashboard`,
    });

    const unknown = await gql(stack.url, MUTATION, { input: { mode: 'setup' } }, owner.token);
    expect(unknown.body.errors[0]).toMatchObject({ message: UNKNOWN_MODE_MESSAGE, extensions: { code: 'BAD_USER_INPUT' } });
    const redirect = await gql(stack.url, MUTATION, { input: { ...proCheckout, successUrl: 'https://evil.example/' } }, owner.token);
    expect(redirect.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const anonymous = await gql(stack.url, 'mutation { createCustomer }');
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('POST /api/payment/webhook', () => {
  const deliver = (payload: string, signature?: string) =>
    call('/api/payment/webhook', { rawBody: payload, headers: signature === undefined ? {} : { 'stripe-signature': signature } });

  /** A real checkout through the gateway, completed at the fake as a paying customer would. */
  async function completedCheckout(owner: Owner, body: object): Promise<StripeEventJson> {
    const res = await call('/api/payment/create-checkout-session', { body, token: owner.token });
    expect(res.status).toBe(200);
    return fake.completeCheckoutSession(sessionIdOf(res.body.url));
  }

  const ledger = (owner: Owner) =>
    billingQuery<{ amount: string; reason: string; reference: string }>(
      stack,
      `SELECT amount::text AS amount, reason, reference FROM $schema."CreditLedgerEntry" WHERE "userId" = $1 AND reason <> 'signup_credit' ORDER BY "createdAt"`,
      [owner.userId],
    );
  const processed = async (eventId: string) =>
    (
      await billingQuery<{ n: number }>(stack, `SELECT count(*)::int AS n FROM $schema."ProcessedStripeEvent" WHERE "eventId" = $1`, [
        eventId,
      ])
    )[0]!.n;

  async function expectRefused(payload: string, signature: string | undefined, message: string, eventId?: string) {
    const res = await deliver(payload, signature);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
    if (eventId) expect(await stripeQueue.getJob(eventId)).toBeUndefined();
  }

  it('refuses a missing, wrong, tampered or stale signature with 400, and queues nothing', async () => {
    const owner = await registerOwner(stack, 'refused');
    const event = await completedCheckout(owner, proCheckout);
    const payload = stripeEventPayload(event);
    await expectRefused(payload, undefined, MISSING_SIGNATURE_MESSAGE, event.id);
    await expectRefused(payload, '', MISSING_SIGNATURE_MESSAGE, event.id);
    await expectRefused(payload, signStripePayload(payload, 'whsec_someone_else'), INVALID_SIGNATURE_MESSAGE, event.id);
    await expectRefused(payload, 't=123,v0=abc', INVALID_SIGNATURE_MESSAGE, event.id);
    // Signed, then changed: a larger amount in the body the signature does not cover.
    const tampered = payload.replace('"amount_total": 1000', '"amount_total": 1000000');
    expect(tampered).not.toBe(payload);
    await expectRefused(tampered, signStripePayload(payload, stack.webhookSecret!), INVALID_SIGNATURE_MESSAGE, event.id);
    // A delivery signed six minutes ago (Stripe's tolerance is five): a replay.
    await expectRefused(
      payload,
      signStripePayload(payload, stack.webhookSecret!, Math.floor(Date.now() / 1000) - 360),
      STALE_SIGNATURE_MESSAGE,
      event.id,
    );
    // Correctly signed, but not an event.
    await expectRefused('not json', signStripePayload('not json', stack.webhookSecret!), 'The event is not valid JSON');
    const noId = JSON.stringify({ object: 'event', type: 'checkout.session.completed' });
    await expectRefused(noId, signStripePayload(noId, stack.webhookSecret!), 'The event has no valid id');

    await sleep(300);
    expect(await accountRow(stack, owner)).toMatchObject({ plan: 'free' });
    expect(await ledger(owner)).toEqual([]);
    expect(await processed(event.id)).toBe(0);
  });

  it('accepts a signed checkout completion at once; billing applies it once: pro plan and +2.00; a redelivery changes nothing', async () => {
    const owner = await registerOwner(stack, 'upgrade');
    const event = await completedCheckout(owner, proCheckout);
    const before = await accountRow(stack, owner);
    expect(before.plan).toBe('free');
    const payload = stripeEventPayload(event);

    const res = await deliver(payload, signStripePayload(payload, stack.webhookSecret!));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    // Queued under the event id, with the body exactly as Stripe sent it.
    const job = await stripeQueue.getJob(event.id);
    expect(job?.data).toMatchObject({ eventId: event.id, type: 'checkout.session.completed', payload });

    const after = await waitFor(
      () => accountRow(stack, owner),
      (a) => a.plan === 'pro',
    );
    expect(after.plan).toBe('pro');
    expect(units(after.creditBalance) - units(before.creditBalance)).toBe(units('2.00'));
    expect((await call('/api/auth/current', { token: owner.token })).body.subscription).toBe('pro');

    // Stripe delivers again (a new signature, the same event): accepted, applied never twice.
    for (let i = 0; i < 3; i++) {
      const again = await deliver(payload, signStripePayload(payload, stack.webhookSecret!));
      expect(again.status).toBe(200);
    }
    await waitFor(
      async () => (await stripeQueue.getJob(event.id))?.getState(),
      (s) => s === 'completed',
    );
    await sleep(500);
    expect(await accountRow(stack, owner)).toEqual(after);
    expect(await ledger(owner)).toEqual([
      expect.objectContaining({ amount: expect.stringMatching(/^2(\.0+)?$/), reason: 'pro_plan_credit' }),
    ]);
    expect(await processed(event.id)).toBe(1);
  });

  it('credits a top-up with exactly the amount paid in the signed event', async () => {
    const owner = await registerOwner(stack, 'topup');
    const event = await completedCheckout(owner, topUpCheckout);
    const before = await accountRow(stack, owner);
    const payload = stripeEventPayload(event);
    expect((await deliver(payload, signStripePayload(payload, stack.webhookSecret!))).status).toBe(200);
    const after = await waitFor(
      () => accountRow(stack, owner),
      (a) => a.creditBalance !== before.creditBalance,
    );
    expect(units(after.creditBalance) - units(before.creditBalance)).toBe(units('5.00'));
    expect(after.plan).toBe('free');
  });

  it('acknowledges an event type billing does not act on, changing nothing', async () => {
    const owner = await registerOwner(stack, 'ignored');
    const before = await accountRow(stack, owner);
    const event = stripeEvent('invoice.paid', { id: 'in_123', object: 'invoice', customer: 'cus_x' });
    const payload = stripeEventPayload(event);
    expect((await deliver(payload, signStripePayload(payload, stack.webhookSecret!))).status).toBe(200);
    expect(
      await waitFor(
        () => processed(event.id),
        (n) => n === 1,
      ),
    ).toBe(1);
    expect(await accountRow(stack, owner)).toEqual(before);
  });

  it('answers 503 when the event cannot be queued, so Stripe retries it', { timeout: 30_000 }, async () => {
    // A gateway whose Redis does not answer (nothing listens on port 1).
    const offline = await startGateway({ ...stack.gatewayEnv, REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const event = stripeEvent('invoice.paid', { id: 'in_456', object: 'invoice' });
      const payload = stripeEventPayload(event);
      const res = await api(offline.url, '/api/payment/webhook', {
        rawBody: payload,
        headers: { 'stripe-signature': signStripePayload(payload, stack.webhookSecret!) },
      });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ message: NOT_ACCEPTED_MESSAGE });
    } finally {
      await offline.close();
    }
  });
});
