import type { Plan } from '../session/session-user';

/** How a plan is named (docs/product.md, Dashboard): the plan value followed by " Plan", e.g. "free Plan". */
export function planLabel(plan: Plan): string {
  return `${plan} Plan`;
}
