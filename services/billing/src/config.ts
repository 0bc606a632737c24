// Billing's environment, validated at start: a bad value stops the process with a message naming it.
import { commonVars, ConfigError, int, port, readConfig, text, url } from '@parley/common/config.ts';

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

/**
 * A positive amount of dollars a checkout charges: whole cents (at most 2 decimals), because card
 * payments are made in cents. Kept as the decimal string; `centsOf` converts it exactly.
 */
export const chargeAmount = (raw: string, name: string): string => {
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(raw) || !/[1-9]/.test(raw)) {
    throw new ConfigError(`${name} must be a positive amount of dollars with at most 2 decimals (e.g. "5.00"), got "${raw}"`);
  }
  return raw;
};

/** Whole cents of a `chargeAmount` string, exactly ("5.5" → 550). */
export function centsOf(amount: string): number {
  const [whole, fraction = ''] = amount.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

const stripeId =
  (prefix: string) =>
  (raw: string, name: string): string => {
    if (!/^[A-Za-z0-9_]{1,255}$/.test(raw)) throw new ConfigError(`${name} must be a Stripe id (e.g. "${prefix}_..."), got "${raw}"`);
    return raw;
  };

const secretKey = (raw: string, name: string): string => {
  // A publishable key (pk_...) here is a common mistake: it cannot create checkouts.
  if (!/^(sk|rk)_[A-Za-z0-9_]+$/.test(raw))
    throw new ConfigError(
      `${name} must be a Stripe secret or restricted key ("sk_..." or "rk_..."), got a value starting "${raw.slice(0, 3)}" (not shown further)`,
    );
  return raw;
};

const schemaName = (raw: string, name: string): string => {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw))
    throw new ConfigError(`${name} must be a Postgres schema name (lower case, digits, _), got "${raw}"`);
  return raw;
};

export const billingVars = {
  ...commonVars,
  PORT: { parse: port, default: '4004' },
  BILLING_DB_SCHEMA: { parse: schemaName, default: 'billing' },
  QUEUE_PREFIX: { parse: text, default: 'parley' },
  /** The model catalogue whose prices billing charges (services/common/src/models/catalogue.ts); unset: the shipped defaults. The same file as the chat service's. */
  MODEL_CATALOGUE_FILE: { parse: text, optional: true },
  /** Credit granted when an account is opened (the free plan's $0.01). */
  INITIAL_CREDIT: { parse: decimalAmount, default: '0.01' },
  /**
   * What an answer given on the workspace's own provider key costs, in exact decimal dollars: its hold
   * and its usage record's cost instead of the model's price (docs/adr/0043-own-provider-keys.md).
   */
  OWN_KEY_PLATFORM_FEE: { parse: decimalAmount, default: '0' },
  /** credit.low (webhooks, ADR 32) is sent when a settlement leaves the balance below this, once per crossing. */
  CREDIT_LOW_THRESHOLD: { parse: decimalAmount, default: '0.50' },
  /** Unset: TEST MODE, checkout runs on the gateway's local page and no real payment is taken. */
  STRIPE_SECRET_KEY: { parse: secretKey, optional: true },
  /** Where the Stripe API is reached (tests and the offline stack point it at a local fake). */
  STRIPE_API_BASE: { parse: url(['http', 'https']), optional: true },
  /** The Stripe price ids of what the server sells; required with STRIPE_SECRET_KEY. */
  STRIPE_PRICE_PRO: { parse: stripeId('price'), optional: true },
  STRIPE_PRICE_TOPUP: { parse: stripeId('price'), optional: true },
  /** The product's own origin: test-mode checkout pages live under it. */
  PUBLIC_URL: { parse: url(['http', 'https']), default: 'http://localhost:8080' },
  /** Credit granted once per pro subscription (the pro plan's $2.00, docs/product.md, Plans, credit and checkout). */
  PRO_PLAN_CREDIT: { parse: decimalAmount, default: '2.00' },
  /** What one test-mode top-up charges and credits, and what the pages show. */
  CREDIT_TOPUP_AMOUNT: { parse: chargeAmount, default: '5.00' },
  /** What the test-mode page charges for a month of pro (the pro plan's $10). */
  PRO_PLAN_PRICE: { parse: chargeAmount, default: '10.00' },
  /** How long a credit hold lasts before its answer counts as lost (ADR 10): past it, the chat service reconciles it. */
  CREDIT_HOLD_TTL_MS: { parse: int(1000, 86_400_000), default: '600000' },
  /**
   * How long past its expiry a hold waits for the chat service to settle it from the stored exchange
   * (or release it) before billing's sweep releases it itself (ADR 37).
   */
  HOLD_RECONCILE_GRACE_MS: { parse: int(0, 86_400_000), default: '600000' },
};

export type BillingConfig = ReturnType<typeof readBillingConfig>;

export function readBillingConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = readConfig(billingVars, env);
  if (config.STRIPE_SECRET_KEY) {
    // With a real key the server must know what it sells: a checkout without a price would fail
    // at the first customer's click instead of at start.
    for (const name of ['STRIPE_PRICE_PRO', 'STRIPE_PRICE_TOPUP'] as const) {
      if (!config[name]) throw new ConfigError(`${name} is required when STRIPE_SECRET_KEY is set (the Stripe price id, e.g. "price_...")`);
    }
  }
  return config;
}

/** Like readBillingConfig, but prints the problem and exits: for the process's start. */
export function loadBillingConfig(env: NodeJS.ProcessEnv = process.env): BillingConfig {
  try {
    return readBillingConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Invalid environment: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
