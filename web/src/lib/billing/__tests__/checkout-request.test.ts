import { describe, expect, it } from 'vitest';
import { checkoutRequest } from '../checkout-request';

const page = { origin: 'https://parley.example', href: 'https://parley.example/pricing' };

describe('checkoutRequest', () => {
  it('asks for the pro subscription, returning to the dashboard or, when cancelled, to this page', () => {
    expect(checkoutRequest('pro', page)).toEqual({
      mode: 'subscription',
      lineItems: [{ price: 'pro', quantity: 1 }],
      metadata: { type: 'subscription', plan: 'pro' },
      successUrl: 'https://parley.example/dashboard?checkout=success',
      cancelUrl: 'https://parley.example/pricing',
    });
  });

  it('asks for one credit top-up', () => {
    expect(checkoutRequest('credit_topup', { ...page, href: 'https://parley.example/dashboard' })).toEqual({
      mode: 'payment',
      lineItems: [{ price: 'credit_topup', quantity: 1 }],
      metadata: { type: 'credit_topup' },
      successUrl: 'https://parley.example/dashboard?checkout=success',
      cancelUrl: 'https://parley.example/dashboard',
    });
  });
});
