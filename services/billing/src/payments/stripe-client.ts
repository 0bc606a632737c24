// The Stripe API client billing uses, or none in TEST MODE (no STRIPE_SECRET_KEY): checkout then
// runs on the gateway's local page and nothing reaches Stripe, and the stripe SDK (≈ 220 modules,
// ≈ 4 MB at rest) is never loaded.
import type Stripe from 'stripe';
import { unavailable } from '@parley/common/rpc-errors.ts';
import type { Logger } from '@parley/common/logger.ts';

export type { Stripe };

/** The stripe SDK, loaded on first use. */
export async function stripeSdk(): Promise<typeof Stripe> {
  return (await import('stripe')).default;
}

export async function createStripeClient(config: { STRIPE_SECRET_KEY?: string; STRIPE_API_BASE?: string }): Promise<Stripe | null> {
  if (!config.STRIPE_SECRET_KEY) return null;
  const base = config.STRIPE_API_BASE ? new URL(config.STRIPE_API_BASE) : undefined;
  const Sdk = await stripeSdk();
  return new Sdk(config.STRIPE_SECRET_KEY, {
    ...(base && {
      host: base.hostname,
      port: base.port || (base.protocol === 'http:' ? 80 : 443),
      protocol: base.protocol === 'http:' ? 'http' : 'https',
    }),
    // A browser is waiting on the checkout: fail within seconds rather than Stripe's default 80.
    timeout: 20_000,
    maxNetworkRetries: 2,
  });
}

/**
 * Runs one Stripe call. Its failures (Stripe down, a misconfigured price id) are logged in full and
 * reach the caller as UNAVAILABLE with a message meant for the user, never with Stripe's details.
 */
export async function callStripe<T>(logger: Logger, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof (await stripeSdk()).errors.StripeError) {
      logger.error(
        { err: err.message, type: err.type, code: err.code, statusCode: err.statusCode, requestId: err.requestId },
        `stripe: ${what} failed`,
      );
      throw unavailable('The payment provider is unavailable. Please try again.');
    }
    throw err;
  }
}
