/** A dollar amount (Decimal string or number) with a fixed number of decimals, e.g. "$0.0100". */
export function formatDollars(amount: string | number, decimals: number): string {
  const value = typeof amount === 'number' ? amount : Number(amount);
  return `$${(Number.isFinite(value) ? value : 0).toFixed(decimals)}`;
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
