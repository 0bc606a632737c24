// The Usage Statistics card's credit bar (docs/product.md, Dashboard).

/** Assumed when the balance is missing, as for a newly registered user (docs/product.md, Plans, credit and checkout). */
export const FALLBACK_CREDIT_BALANCE = 0.01;
export const GREEN_UP_TO_PERCENT = 30;
export const YELLOW_UP_TO_PERCENT = 70;

export type CreditBarTone = 'green' | 'yellow' | 'red';

/**
 * Percent of credit used = round(cost used / credit balance × 100), capped at 100; the balance falls
 * back to 0.01 when absent, and the percent is 0 when the balance is not positive.
 */
export function creditPercentUsed(costUsed: string | number, creditBalance: string | number | null | undefined): number {
  const balance =
    creditBalance === null || creditBalance === undefined || creditBalance === '' ? FALLBACK_CREDIT_BALANCE : Number(creditBalance);
  if (!(balance > 0)) return 0;
  const percent = Math.round((Number(costUsed) / balance) * 100);
  if (!Number.isFinite(percent) || percent < 0) return 0;
  return Math.min(100, percent);
}

/** Up to 30 % green, up to 70 % yellow, above that red. */
export function creditBarTone(percent: number): CreditBarTone {
  if (percent <= GREEN_UP_TO_PERCENT) return 'green';
  if (percent <= YELLOW_UP_TO_PERCENT) return 'yellow';
  return 'red';
}
