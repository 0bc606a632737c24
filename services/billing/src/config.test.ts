import { describe, expect, it } from 'vitest';
import { ConfigError } from '@parley/common/config.ts';
import { readBillingConfig } from './config.ts';

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
});
