// Runs the fake Stripe API as its own process (the end-to-end suite and an offline stack with a
// "real" key): prints its base URL, for STRIPE_API_BASE, on the first line of stdout.
// FAKE_STRIPE_KEY sets the secret key it accepts (default sk_test_parley_fake); its prices are
// price_parley_pro_monthly ($10.00 a month) and price_parley_credit_topup ($5.00 once).
import { FAKE_STRIPE_KEY, startFakeStripe } from './fake-stripe.ts';

const rawPort = process.env.PORT ?? '';
const port = rawPort === '' ? 0 : Number(rawPort);
if (!/^\d*$/.test(rawPort) || port > 65535) {
  process.stderr.write(`Invalid environment: PORT must be a port number (0-65535), got "${rawPort}"\n`);
  process.exit(1);
}

const fake = await startFakeStripe({ port, host: process.env.HOST || '127.0.0.1', apiKey: process.env.FAKE_STRIPE_KEY || FAKE_STRIPE_KEY });
process.stdout.write(`${fake.url}\n`);

const stop = () => {
  void fake.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
