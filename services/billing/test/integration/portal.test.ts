// "Manage plan": Stripe's customer portal for an owner with a subscription (through the fake Stripe
// API), and in TEST MODE a local portal session that the gateway's page reads for an hour.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Code, type Client } from '@connectrpc/connect';
import { BillingService, CheckoutProduct } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';
import {
  FAKE_PRICE_PRO,
  FAKE_PRICE_TOPUP,
  FAKE_STRIPE_KEY,
  startFakeStripe,
  stripeEventPayload,
  subscriptionCheckoutCompletedEvent,
  subscriptionDeletedEvent,
  type FakeStripe,
  type StripeEventJson,
} from '@parley/common/testing/fake-stripe.ts';
import { deleteAccountData } from '../../src/accounts/delete-account-data.ts';
import { applyStripeEvent } from '../../src/payments/apply-stripe-event.ts';
import { NO_SUBSCRIPTION_MESSAGE } from '../../src/payments/create-portal-session.ts';
import { startBilling, type Billing } from './harness.ts';

const PUBLIC_URL = 'http://parley.test:8080';
const RETURN_URL = `${PUBLIC_URL}/account`;

const apply = (billing: Billing, event: StripeEventJson) =>
  applyStripeEvent(billing.parts.payments, { eventId: event.id, type: event.type, payload: stripeEventPayload(event) });

describe('test mode', () => {
  let billing: Billing;
  let client: Client<typeof BillingService>;

  beforeAll(async () => {
    billing = await startBilling({ env: { STRIPE_SECRET_KEY: '', STRIPE_API_BASE: '', PUBLIC_URL } });
    client = createServiceClient(BillingService, billing.url);
  });
  afterAll(async () => {
    await billing?.stop();
  });

  /** A pro owner as the test checkout page makes one: a local customer and a subscription. */
  async function proOwner(ownerId: string): Promise<{ customerId: string; subscriptionId: string }> {
    const { sessionId } = await client.createCheckoutSession({
      ownerId,
      product: CheckoutProduct.PRO_SUBSCRIPTION,
      successUrl: `${PUBLIC_URL}/dashboard`,
      cancelUrl: `${PUBLIC_URL}/pricing`,
    });
    const { customerId } = await client.getTestCheckoutSession({ sessionId });
    const subscriptionId = `sub_test_${sessionId}`;
    expect(await apply(billing, subscriptionCheckoutCompletedEvent({ userId: ownerId, customerId, subscriptionId, sessionId }))).toBe(
      'applied',
    );
    return { customerId, subscriptionId };
  }

  it('refuses an owner without a subscription, with or without a customer', async () => {
    for (const ownerId of ['tp-none', 'tp-customer-only']) {
      if (ownerId === 'tp-customer-only') await client.createCustomer({ ownerId });
      const err = await rpcError(client.createPortalSession({ ownerId, returnUrl: RETURN_URL }));
      expect(err.code).toBe(Code.FailedPrecondition);
      expect(err.rawMessage).toBe(NO_SUBSCRIPTION_MESSAGE);
    }
    expect(await billing.parts.prisma.portalSession.count()).toBe(0);
  });

  it('refuses a missing owner id or a return URL that is not an absolute http(s) URL', async () => {
    expect((await rpcError(client.createPortalSession({ ownerId: ' ', returnUrl: RETURN_URL }))).code).toBe(Code.InvalidArgument);
    for (const returnUrl of ['', '/account', 'javascript:alert(1)']) {
      expect((await rpcError(client.createPortalSession({ ownerId: 'tp-bad-url', returnUrl }))).code).toBe(Code.InvalidArgument);
    }
  });

  it('opens a local portal session for an hour, which GetTestPortalSession describes, status and all', async () => {
    const { customerId, subscriptionId } = await proOwner('tp-pro');
    const before = Date.now();
    const { url } = await client.createPortalSession({ ownerId: 'tp-pro', returnUrl: RETURN_URL });
    const match = /^http:\/\/parley\.test:8080\/billing\/test-portal\/(bps_test_[A-Za-z0-9_-]{22})$/.exec(url);
    expect(match).not.toBeNull();
    const sessionId = match![1];
    const row = await billing.parts.prisma.portalSession.findUniqueOrThrow({ where: { id: sessionId } });
    expect(row).toMatchObject({ ownerId: 'tp-pro', returnUrl: RETURN_URL });
    expect(row.expiresAt.getTime() - before).toBeGreaterThanOrEqual(3600_000 - 1000);
    expect(row.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(3600_000);

    expect(await client.getTestPortalSession({ sessionId })).toMatchObject({
      sessionId,
      ownerId: 'tp-pro',
      customerId,
      subscriptionId,
      subscriptionStatus: 'active',
      returnUrl: RETURN_URL,
    });

    // Canceled (as the page's Cancel button has Stripe tell billing): the page shows it.
    expect(await apply(billing, subscriptionDeletedEvent({ subscriptionId, customerId, userId: 'tp-pro' }))).toBe('applied');
    expect(await client.getTestPortalSession({ sessionId })).toMatchObject({ subscriptionId, subscriptionStatus: 'canceled' });
    // A canceled subscription can still be looked at.
    expect((await client.createPortalSession({ ownerId: 'tp-pro', returnUrl: RETURN_URL })).url).toMatch(
      /\/billing\/test-portal\/bps_test_/,
    );
  });

  it('answers NOT_FOUND for an unknown, malformed or expired session, and INVALID_ARGUMENT for none', async () => {
    await proOwner('tp-expired');
    const { url } = await client.createPortalSession({ ownerId: 'tp-expired', returnUrl: RETURN_URL });
    const sessionId = url.split('/').pop()!;
    await billing.parts.prisma.portalSession.update({ where: { id: sessionId }, data: { expiresAt: new Date(Date.now() - 1) } });
    for (const id of [sessionId, 'bps_test_doesnotexist', '<script>', 'bps_test_../../x']) {
      const err = await rpcError(client.getTestPortalSession({ sessionId: id }));
      expect([id, err.code, err.rawMessage]).toEqual([id, Code.NotFound, 'Portal session not found.']);
      expect(err.rawMessage).toBe('Portal session not found.');
    }
    expect((await rpcError(client.getTestPortalSession({ sessionId: ' ' }))).code).toBe(Code.InvalidArgument);
  });

  it('deletes a test-mode owner without calling Stripe: their portal sessions are gone too', async () => {
    await proOwner('tp-deleted');
    const { url } = await client.createPortalSession({ ownerId: 'tp-deleted', returnUrl: RETURN_URL });
    expect(await deleteAccountData(billing.parts.payments, 'tp-deleted')).toBe('deleted');
    expect((await rpcError(client.getTestPortalSession({ sessionId: url.split('/').pop()! }))).code).toBe(Code.NotFound);
    expect(await billing.parts.prisma.portalSession.count({ where: { ownerId: 'tp-deleted' } })).toBe(0);
    expect((await rpcError(client.createPortalSession({ ownerId: 'tp-deleted', returnUrl: RETURN_URL }))).code).toBe(Code.NotFound);
  });
});

describe('with Stripe', () => {
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
        PUBLIC_URL,
      },
    });
    client = createServiceClient(BillingService, billing.url, { timeoutMs: 20_000 });
  });
  afterAll(async () => {
    await billing?.stop();
    await fake?.close();
  });
  beforeEach(() => fake.setBehaviour({ failWith: null, delayMs: 0 }));

  async function proOwner(ownerId: string): Promise<string> {
    const { sessionId } = await client.createCheckoutSession({
      ownerId,
      product: CheckoutProduct.PRO_SUBSCRIPTION,
      successUrl: `${PUBLIC_URL}/dashboard`,
      cancelUrl: `${PUBLIC_URL}/pricing`,
    });
    expect(await apply(billing, fake.completeCheckoutSession(sessionId))).toBe('applied');
    return (await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId } })).stripeCustomerId!;
  }

  it("answers Stripe's portal URL for the owner's customer, with the return URL", async () => {
    const customerId = await proOwner('sp-pro');
    const { url } = await client.createPortalSession({ ownerId: 'sp-pro', returnUrl: RETURN_URL });
    const [request] = fake.requestsTo('POST', '/v1/billing_portal/sessions');
    expect(request.params).toEqual({ customer: customerId, return_url: RETURN_URL });
    const [session] = [...fake.portalSessions.values()];
    expect(url).toBe(session.url);
    expect(await billing.parts.prisma.portalSession.count()).toBe(0);
  });

  it('refuses an owner without a subscription before asking Stripe', async () => {
    await client.createCustomer({ ownerId: 'sp-customer-only' });
    const calls = fake.requestsTo('POST', '/v1/billing_portal/sessions').length;
    expect((await rpcError(client.createPortalSession({ ownerId: 'sp-customer-only', returnUrl: RETURN_URL }))).rawMessage).toBe(
      NO_SUBSCRIPTION_MESSAGE,
    );
    expect(fake.requestsTo('POST', '/v1/billing_portal/sessions')).toHaveLength(calls);
  });

  it('answers UNAVAILABLE with a message for the user when Stripe fails', async () => {
    await proOwner('sp-down');
    fake.setBehaviour({ failWith: 400 });
    const err = await rpcError(client.createPortalSession({ ownerId: 'sp-down', returnUrl: RETURN_URL }));
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toBe('The payment provider is unavailable. Please try again.');
  });

  it('has no test portal: GetTestPortalSession is FAILED_PRECONDITION', async () => {
    expect((await rpcError(client.getTestPortalSession({ sessionId: 'bps_test_anything' }))).code).toBe(Code.FailedPrecondition);
  });
});
