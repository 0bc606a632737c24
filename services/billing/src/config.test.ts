import { describe, expect, it } from 'vitest';
import { ConfigError } from '@parley/common/config.ts';
import { centsOf, readBillingConfig } from './config.ts';

describe('readBillingConfig', () => {
  it('has defaults that run against local services', () => {
    const config = readBillingConfig({});
    expect(config).toMatchObject({ PORT: 4004, BILLING_DB_SCHEMA: 'billing', QUEUE_PREFIX: 'parley', INITIAL_CREDIT: '0.01' });
  });

  it.each(['0', '2.00', '0.0000000001', '1234567890.5'])('accepts INITIAL_CREDIT=%s', (value) => {
    expect(readBillingConfig({ INITIAL_CREDIT: value }).INITIAL_CREDIT).toBe(value);
  });

  it.each(['-0.01', 'abc', '1e-2', '.5', '0.00000000001', '1,5'])('rejects INITIAL_CREDIT=%s naming the variable', (value) => {
    expect(() => readBillingConfig({ INITIAL_CREDIT: value })).toThrow(ConfigError);
    expect(() => readBillingConfig({ INITIAL_CREDIT: value })).toThrow(/INITIAL_CREDIT/);
  });

  it('rejects a schema name Postgres would need quoting for', () => {
    expect(() => readBillingConfig({ BILLING_DB_SCHEMA: 'Billing-1' })).toThrow(/BILLING_DB_SCHEMA/);
  });

  describe('payments', () => {
    it("runs in test mode with the product's amounts when nothing is set", () => {
      expect(readBillingConfig({})).toMatchObject({
        STRIPE_SECRET_KEY: undefined,
        STRIPE_API_BASE: undefined,
        PUBLIC_URL: 'http://localhost:8080',
        PRO_PLAN_CREDIT: '2.00',
        CREDIT_TOPUP_AMOUNT: '5.00',
        PRO_PLAN_PRICE: '10.00',
      });
    });

    it('takes a Stripe key with both price ids and an API base', () => {
      const config = readBillingConfig({
        STRIPE_SECRET_KEY: 'sk_test_123',
        STRIPE_PRICE_PRO: 'price_pro',
        STRIPE_PRICE_TOPUP: 'price_topup',
        STRIPE_API_BASE: 'http://127.0.0.1:12111',
      });
      expect(config).toMatchObject({
        STRIPE_SECRET_KEY: 'sk_test_123',
        STRIPE_PRICE_PRO: 'price_pro',
        STRIPE_PRICE_TOPUP: 'price_topup',
        STRIPE_API_BASE: 'http://127.0.0.1:12111',
      });
    });

    it.each([
      [{}, /STRIPE_PRICE_PRO is required when STRIPE_SECRET_KEY is set/],
      [{ STRIPE_PRICE_PRO: 'price_pro' }, /STRIPE_PRICE_TOPUP is required when STRIPE_SECRET_KEY is set/],
    ])('refuses a Stripe key without the price ids, naming the missing one (%o)', (prices, message) => {
      expect(() => readBillingConfig({ STRIPE_SECRET_KEY: 'sk_test_123', ...prices })).toThrow(message);
    });

    it('refuses a publishable key without printing it', () => {
      const read = () => readBillingConfig({ STRIPE_SECRET_KEY: 'pk_live_secretish', STRIPE_PRICE_PRO: 'p', STRIPE_PRICE_TOPUP: 't' });
      expect(read).toThrow(/STRIPE_SECRET_KEY must be a Stripe secret or restricted key/);
      expect(read).not.toThrow(/secretish/);
    });

    it.each([
      ['CREDIT_TOPUP_AMOUNT', '0'],
      ['CREDIT_TOPUP_AMOUNT', '5.001'],
      ['CREDIT_TOPUP_AMOUNT', '-5'],
      ['PRO_PLAN_PRICE', 'ten'],
      ['PRO_PLAN_CREDIT', '-2'],
      ['PUBLIC_URL', 'localhost:8080'],
      ['STRIPE_API_BASE', 'ftp://127.0.0.1'],
      ['STRIPE_PRICE_PRO', 'price pro'],
    ])('rejects %s=%s naming the variable', (name, value) => {
      expect(() => readBillingConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => readBillingConfig({ [name]: value })).toThrow(new RegExp(name));
    });

    it.each([
      ['5.00', 500],
      ['7.5', 750],
      ['0.01', 1],
      ['10', 1000],
      ['1234567.89', 123456789],
    ])('charges %s as %i cents, exactly', (amount, cents) => {
      expect(centsOf(readBillingConfig({ CREDIT_TOPUP_AMOUNT: amount }).CREDIT_TOPUP_AMOUNT)).toBe(cents);
    });
  });
});
