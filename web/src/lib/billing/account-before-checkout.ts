// The plan and credit an owner had when leaving for a checkout, kept for the return to the
// dashboard: Stripe's events are applied a moment after payment, so the dashboard asks again until
// the account differs from this. sessionStorage, because the checkout is a round trip in one tab.
import type { SessionUser } from '../session/session-user';

const KEY = 'parley.accountBeforeCheckout';

export interface AccountSnapshot {
  subscription: string;
  creditBalance: string;
}

export function rememberAccountBeforeCheckout(user: SessionUser): void {
  const snapshot: AccountSnapshot = { subscription: user.subscription, creditBalance: user.usage.creditBalance };
  try {
    sessionStorage.setItem(KEY, JSON.stringify(snapshot));
  } catch {
    // Without storage the dashboard simply asks a few times more.
  }
}

export function accountBeforeCheckout(): AccountSnapshot | null {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
    if (value && typeof value === 'object' && 'subscription' in value && 'creditBalance' in value) {
      const { subscription, creditBalance } = value as Record<string, unknown>;
      if (typeof subscription === 'string' && typeof creditBalance === 'string') return { subscription, creditBalance };
    }
  } catch {
    // Unreadable: treated as unknown.
  }
  return null;
}

export function forgetAccountBeforeCheckout(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing stored, nothing to forget.
  }
}

/** True when the account no longer looks as it did before the checkout (plan or credit changed). */
export function accountChanged(before: AccountSnapshot, now: SessionUser): boolean {
  return before.subscription !== now.subscription || Number(before.creditBalance) !== Number(now.usage.creditBalance);
}
