const PLAIN_DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/**
 * Rounds a decimal string to `decimals` places exactly (half away from zero, as PostgreSQL's
 * ROUND does), without passing through a binary float: "0.000125" to 5 places is "0.00013",
 * where Number("0.000125").toFixed(5) gives "0.00012". Null when the text is not a plain decimal.
 */
export function roundDecimal(value: string, decimals: number): string | null {
  const match = PLAIN_DECIMAL.exec(value.trim());
  if (!match || (!match[2] && !match[3])) return null;
  const [, sign, whole = '', fraction = ''] = match;
  const kept = (fraction + '0'.repeat(decimals + 1)).slice(0, decimals + 1);
  let digits = BigInt((whole || '0') + kept.slice(0, decimals));
  if (Number(kept[decimals]) >= 5) digits += 1n;
  const text = digits.toString().padStart(decimals + 1, '0');
  const rounded = decimals > 0 ? `${text.slice(0, -decimals)}.${text.slice(-decimals)}` : text;
  return sign === '-' && digits !== 0n ? `-${rounded}` : rounded;
}

/** A number of decimals for display: exact for decimal strings, toFixed for numbers; 0 when unreadable. */
export function formatDecimal(amount: string | number, decimals: number): string {
  if (typeof amount === 'string') {
    const exact = roundDecimal(amount, decimals);
    if (exact !== null) return exact;
  }
  const value = typeof amount === 'number' ? amount : Number(amount);
  return (Number.isFinite(value) ? value : 0).toFixed(decimals);
}

/** A dollar amount (Decimal string or number) with a fixed number of decimals, e.g. "$0.0100". */
export function formatDollars(amount: string | number, decimals: number): string {
  return `$${formatDecimal(amount, decimals)}`;
}

const countFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A whole count with thousands separators, e.g. "12,345". */
export function formatCount(value: number): string {
  return countFormat.format(Number.isFinite(value) ? value : 0);
}

const dateFormat = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric' });

/** A calendar date from an ISO timestamp, e.g. "Jan 5, 2025"; an unreadable value shows as "—". */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '—' : dateFormat.format(date);
}

const dateTimeFormat = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/** A date and time from an ISO timestamp, e.g. "Jan 5, 2025, 3:04 PM"; `fallback` when missing or unreadable. */
export function formatDateTime(iso: string | null | undefined, fallback = '—'): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? fallback : dateTimeFormat.format(date);
}
