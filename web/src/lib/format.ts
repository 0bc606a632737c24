/** A dollar amount (Decimal string or number) with a fixed number of decimals, e.g. "$0.0100". */
export function formatDollars(amount: string | number, decimals: number): string {
  const value = typeof amount === 'number' ? amount : Number(amount);
  return `$${(Number.isFinite(value) ? value : 0).toFixed(decimals)}`;
}
