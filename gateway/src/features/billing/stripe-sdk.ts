// The stripe SDK (≈ 220 modules) is loaded when the first Stripe event or test-mode payment page
// needs it, not when the gateway starts: most processes never see one, and it held ≈ 4 MB at rest.
import type StripeSdk from 'stripe';

let loading: Promise<typeof StripeSdk> | undefined;

export function stripeSdk(): Promise<typeof StripeSdk> {
  return (loading ??= import('stripe').then((m) => m.default));
}
