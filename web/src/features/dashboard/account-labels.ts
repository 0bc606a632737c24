import { formatDollars } from '../../lib/format';

// The account page names the plan the same way, so the rule lives in lib.
export { planLabel } from '../../lib/billing/plan-label';

/** The name the greeting uses; users without a name are greeted as "User". */
export function displayName(name: string | null | undefined): string {
  return name?.trim() || 'User';
}

/** The top-up button: "Top up $5.00" when the server told the amount, else "Top up credit". */
export function topUpLabel(amount: string | null | undefined): string {
  return amount ? `Top up ${formatDollars(amount, 2)}` : 'Top up credit';
}
