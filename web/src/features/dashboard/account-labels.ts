import { formatDollars } from '../../lib/format';
import type { Plan } from '../../lib/session/session-user';

/** How a plan is named on the dashboard: the plan value followed by " Plan", e.g. "free Plan". */
export function planLabel(plan: Plan): string {
  return `${plan} Plan`;
}

/** The name the greeting uses; users without a name are greeted as "User". */
export function displayName(name: string | null | undefined): string {
  return name?.trim() || 'User';
}

/** The top-up button: "Top up $5.00" when the server told the amount, else "Top up credit". */
export function topUpLabel(amount: string | null | undefined): string {
  return amount ? `Top up ${formatDollars(amount, 2)}` : 'Top up credit';
}
