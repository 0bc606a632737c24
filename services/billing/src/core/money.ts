// Money crosses the RPC boundary as an exact decimal string of US dollars.
import type { Prisma } from '../generated/prisma/client.ts';

/**
 * The rule: plain decimal notation, no exponent, no trailing zeros ("0.01", "2", "0.0000001").
 * The database keeps 10 decimals (NUMERIC(20,10)); dropping the trailing zeros loses nothing, and
 * callers format for display themselves. Decimal's `toFixed()` without an argument is exact and
 * unrounded; `toString()` would switch to exponent notation ("1e-7") for very small amounts.
 */
export function formatMoney(amount: Prisma.Decimal): string {
  return amount.toFixed();
}
