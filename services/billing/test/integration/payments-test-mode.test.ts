// Checkout in TEST MODE (no STRIPE_SECRET_KEY): local customers and sessions, what the gateway's test
// page reads, and its completion through the same Stripe event path as a real payment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, type Client } from '@connectrpc/connect';
import { BillingService, CheckoutProduct, Plan } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';
import {
  stripeEventPayload,
  subscriptionCheckoutCompletedEvent,
  topUpCheckoutCompletedEvent,
  type StripeEventJson,
} from '@parley/common/testing/fake-stripe.ts';
import { applyStripeEvent } from '../../src/payments/apply-stripe-event.ts';
import { expectLedgerInvariant } from './ledger.ts';
import { startBilling, type Billing } from './harness.ts';

const PUBLIC_URL = 'http://parley.test:8080';
const SUCCESS_URL = `${PUBLIC_URL}/dashboard`;
const CANCEL_URL = `${PUBLIC_URL}/pricing`;

let billing: Billing;
let client: Client<typeof BillingService>;

beforeAll(async () => {
  // Empty values count as unset, whatever the developer's environment holds.
  billing = await startBilling({
    env: { STRIPE_SECRET_KEY: '', STRIPE_API_BASE: '', PUBLIC_URL, CREDIT_TOPUP_AMOUNT: '7.5', PRO_PLAN_PRICE: '' },
  });
  client = createServiceClient(BillingService, billing.url);
});

afterAll(async () => {
  await billing?.stop();
});

const apply = (event: StripeEventJson) =>
  applyStripeEvent(billing.parts.payments, { eventId: event.id, type: event.type, payload: stripeEventPayload(event) });

describe('test mode', () => {
  it('GetBillingOptions says test mode, with the configured amounts', async () => {
    expect(await client.getBillingOptions({})).toMatchObject({
      testMode: true,
      topUpAmount: '7.5',
      proPlanPrice: '10',
      proPlanCredit: '2',
    });
  });

  it('makes one local customer however many calls race', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => client.createCustomer({ ownerId: 'tm-race' })));
    expect(new Set(results.map((r) => r.customerId)).size).toBe(1);
    expect(results[0].customerId).toMatch(/^cus_test_[0-9a-f]{24}$/);
    expect((await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: 'tm-race' } })).stripeCustomerId).toBe(
      results[0].customerId,
    );
  });

  it("creates a local pro checkout on the product's own test page, which GetTestCheckoutSession describes", async () => {
    const { sessionId, url } = await client.createCheckoutSession({
      ownerId: 'tm-pro',
      product: CheckoutProduct.PRO_SUBSCRIPTION,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    });
    // 128 random bits, base64url: 22 characters.
    expect(sessionId).toMatch(/^cs_test_local_[A-Za-z0-9_-]{22}$/);
    expect(url).toBe(`${PUBLIC_URL}/checkout/test/${sessionId}`);

    const session = await client.getTestCheckoutSession({ sessionId });
    const { stripeCustomerId } = await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: 'tm-pro' } });
    expect(session).toMatchObject({
      sessionId,
      ownerId: 'tm-pro',
      customerId: stripeCustomerId,
      product: CheckoutProduct.PRO_SUBSCRIPTION,
      // PRO_PLAN_PRICE's default, $10.00.
      amountCents: 1000n,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
      completed: false,
    });
  });

  it('prices a top-up at CREDIT_TOPUP_AMOUNT, and its completion credits what was paid and marks the session completed', async () => {
    const { sessionId } = await client.createCheckoutSession({
      ownerId: 'tm-topup',
      product: CheckoutProduct.CREDIT_TOPUP,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    });
    const session = await client.getTestCheckoutSession({ sessionId });
    expect(session.product).toBe(CheckoutProduct.CREDIT_TOPUP);
    expect(session.amountCents).toBe(750n);

    // What the gateway's Pay button sends down the webhook path.
    const event = topUpCheckoutCompletedEvent({
      userId: session.ownerId,
      customerId: session.customerId,
      sessionId,
      amountTotal: Number(session.amountCents),
    });
    expect(await apply(event)).toBe('applied');
    expect(await apply(event)).toBe('already_applied');
    expect((await client.getTestCheckoutSession({ sessionId })).completed).toBe(true);
    expect((await client.getAccount({ ownerId: 'tm-topup' })).account?.creditBalance).toBe('7.51');
  });

  it('a completed test pro checkout makes the owner pro with the pro credit', async () => {
    const { sessionId } = await client.createCheckoutSession({
      ownerId: 'tm-upgrade',
      product: CheckoutProduct.PRO_SUBSCRIPTION,
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
    });
    const session = await client.getTestCheckoutSession({ sessionId });
    expect(
      await apply(
        subscriptionCheckoutCompletedEvent({
          userId: session.ownerId,
          customerId: session.customerId,
          sessionId,
          subscriptionId: 'sub_test_local_1',
        }),
      ),
    ).toBe('applied');
    const { account } = await client.getAccount({ ownerId: 'tm-upgrade' });
    expect(account).toMatchObject({ plan: Plan.PRO, creditBalance: '2.01' });
    expect((await client.getTestCheckoutSession({ sessionId })).completed).toBe(true);

    const again = await rpcError(
      client.createCheckoutSession({
        ownerId: 'tm-upgrade',
        product: CheckoutProduct.PRO_SUBSCRIPTION,
        successUrl: SUCCESS_URL,
        cancelUrl: CANCEL_URL,
      }),
    );
    expect(again.code).toBe(Code.FailedPrecondition);
    expect(again.rawMessage).toBe('You are already on the Pro plan.');
    await expectLedgerInvariant(billing.parts.prisma);
  });

  it('answers NOT_FOUND for an unknown session and INVALID_ARGUMENT for none', async () => {
    const unknown = await rpcError(client.getTestCheckoutSession({ sessionId: 'cs_test_local_AAAAAAAAAAAAAAAAAAAAAA' }));
    expect(unknown.code).toBe(Code.NotFound);
    expect(unknown.rawMessage).toBe('Checkout session not found.');
    expect((await rpcError(client.getTestCheckoutSession({ sessionId: '' }))).code).toBe(Code.InvalidArgument);
    // An id that is not base64url is never looked up (a NUL is refused earlier still, by the service kit).
    expect((await rpcError(client.getTestCheckoutSession({ sessionId: 'cs_test_local_\u0001x' }))).code).toBe(Code.NotFound);
    expect((await rpcError(client.getTestCheckoutSession({ sessionId: 'cs_test_local_\u0000x' }))).code).toBe(Code.InvalidArgument);
  });
});
