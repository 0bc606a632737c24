// Billing's environment, validated at start: a bad value stops the process with a message naming it.
import { commonVars, ConfigError, port, readConfig, text } from '@parley/common/config.ts';

/**
 * A non-negative amount of dollars as an exact decimal string. It must fit the NUMERIC(20,10)
 * columns it is stored in (10 integer digits, 10 decimals), so it is never silently rounded.
 */
export const decimalAmount = (raw: string, name: string): string => {
  if (!/^\d{1,10}(\.\d{1,10})?$/.test(raw)) {
    throw new ConfigError(`${name} must be a non-negative decimal amount with at most 10 decimals (e.g. "0.01"), got "${raw}"`);
  }
  return raw;
};

const schemaName = (raw: string, name: string): string => {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) throw new ConfigError(`${name} must be a Postgres schema name (lower case, digits, _), got "${raw}"`);
  return raw;
};

export const billingVars = {
  ...commonVars,
  PORT: { parse: port, default: '4004' },
  BILLING_DB_SCHEMA: { parse: schemaName, default: 'billing' },
  QUEUE_PREFIX: { parse: text, default: 'parley' },
  /** Credit granted when an account is opened (the free plan's $0.01). */
  INITIAL_CREDIT: { parse: decimalAmount, default: '0.01' },
};

export type BillingConfig = ReturnType<typeof readBillingConfig>;

export function readBillingConfig(env: NodeJS.ProcessEnv = process.env) {
  return readConfig(billingVars, env);
}
