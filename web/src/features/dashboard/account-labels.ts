import type { Plan } from '../../lib/session/session-user';

/** How a plan is named on the dashboard: the plan value followed by " Plan", e.g. "free Plan". */
export function planLabel(plan: Plan): string {
  return `${plan} Plan`;
}

/** The name the greeting uses; users without a name are greeted as "User". */
export function displayName(name: string | null | undefined): string {
  return name?.trim() || 'User';
}
