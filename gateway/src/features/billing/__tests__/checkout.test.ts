// What the client's checkout payload can and cannot decide: the product only, and return URLs only
// on the product's own origin.
import { describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { CheckoutProduct, GetTestCheckoutSessionResponseSchema } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ConnectError } from '@parley/common/rpc-errors.ts';
import { MISMATCHED_METADATA_MESSAGE, returnUrl, selectProduct, UNKNOWN_MODE_MESSAGE } from '../checkout.ts';
import { escapeHtml } from '../../../http/html-page.ts';
import { completedCheckoutEvent, productLabel } from '../../../test-mode/test-checkout.ts';

const PUBLIC = 'https://parley.example';
const messageOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectError);
    return (err as ConnectError).rawMessage;
  }
  throw new Error('not refused');
};

describe('selectProduct', () => {
  it('reads the checkout payloads of the pro subscription and of a credit top-up', () => {
    expect(selectProduct({ mode: 'subscription', metadata: { type: 'subscription', plan: 'pro' } })).toBe(CheckoutProduct.PRO_SUBSCRIPTION);
    expect(selectProduct({ mode: 'subscription' })).toBe(CheckoutProduct.PRO_SUBSCRIPTION);
    expect(selectProduct({ mode: 'subscription', metadata: { type: null, plan: null } })).toBe(CheckoutProduct.PRO_SUBSCRIPTION);
    expect(selectProduct({ mode: 'payment', metadata: { type: 'credit_topup' } })).toBe(CheckoutProduct.CREDIT_TOPUP);
  });

  it.each(['', 'setup', 'Subscription', 'free'])('refuses the mode %j', (mode) => {
    expect(messageOf(() => selectProduct({ mode, metadata: { type: 'subscription', plan: 'pro' } }))).toBe(UNKNOWN_MODE_MESSAGE);
  });

  it.each([
    { mode: 'subscription', metadata: { type: 'credit_topup' } },
    { mode: 'subscription', metadata: { type: 'subscription', plan: 'enterprise' } },
    { mode: 'payment', metadata: { type: 'subscription', plan: 'pro' } },
    { mode: 'payment' },
    { mode: 'payment', metadata: { type: 'credit_topup', plan: 'pro' } },
  ])('refuses contradictory metadata %j', (req) => {
    expect(messageOf(() => selectProduct(req))).toBe(MISMATCHED_METADATA_MESSAGE);
  });
});

describe('returnUrl', () => {
  it('keeps an absolute URL on the public origin, and falls back when none is given', () => {
    expect(returnUrl(`${PUBLIC}/dashboard?paid=1#top`, 'successUrl', PUBLIC, 'x')).toBe(`${PUBLIC}/dashboard?paid=1#top`);
    expect(returnUrl('https://PARLEY.example:443/pricing', 'cancelUrl', PUBLIC, 'x')).toBe(`${PUBLIC}/pricing`);
    expect(returnUrl(undefined, 'successUrl', PUBLIC, 'fallback')).toBe('fallback');
    expect(returnUrl('', 'successUrl', PUBLIC, 'fallback')).toBe('fallback');
  });

  it.each([
    'https://evil.example/dashboard',
    'http://parley.example/dashboard',
    'https://parley.example:8443/dashboard',
    'https://parley.example.evil.example/',
    'https://user:pass@parley.example/dashboard',
    '//evil.example/x',
    '/dashboard',
    'javascript:alert(1)',
    'not a url',
  ])('refuses %j', (raw) => {
    expect(messageOf(() => returnUrl(raw, 'successUrl', PUBLIC, 'x'))).toBe('successUrl must be an address on https://parley.example');
  });
});

describe('the test-mode checkout event', () => {
  const base = {
    sessionId: 'cs_test_abc',
    ownerId: 'u1',
    customerId: 'cus_1',
    successUrl: `${PUBLIC}/dashboard`,
    cancelUrl: `${PUBLIC}/pricing`,
  };
  const now = new Date('2025-01-02T03:04:05Z');

  it('is checkout.session.completed for the pro subscription, with a subscription id', () => {
    const session = create(GetTestCheckoutSessionResponseSchema, {
      ...base,
      product: CheckoutProduct.PRO_SUBSCRIPTION,
      amountCents: 1000n,
    });
    const event = completedCheckoutEvent(session, now);
    expect(event).toMatchObject({ id: 'evt_test_cs_test_abc', type: 'checkout.session.completed', created: 1735787045, livemode: false });
    expect(event.data.object).toMatchObject({
      id: 'cs_test_abc',
      object: 'checkout.session',
      mode: 'subscription',
      customer: 'cus_1',
      client_reference_id: 'u1',
      metadata: { userId: 'u1', type: 'subscription', plan: 'pro' },
      amount_total: 1000,
      currency: 'usd',
      payment_status: 'paid',
      subscription: 'sub_test_cs_test_abc',
    });
    expect(productLabel(session)).toBe('Parley Pro — $10.00 / month');
  });

  it('is a paid one-off payment for a top-up, without a subscription', () => {
    const session = create(GetTestCheckoutSessionResponseSchema, { ...base, product: CheckoutProduct.CREDIT_TOPUP, amountCents: 505n });
    const event = completedCheckoutEvent(session, now);
    expect(event.data.object).toMatchObject({
      mode: 'payment',
      metadata: { userId: 'u1', type: 'credit_topup' },
      amount_total: 505,
      subscription: null,
    });
    expect(productLabel(session)).toBe('Credit top-up — $5.05');
  });

  it('escapes what it puts into HTML', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
