// How analytics figures read on the page: shares as whole percents, answer times in the unit that
// suits them, hours of the day on a 24-hour clock (UTC, as the server counts them).

/** A 0–1 share as a percent, e.g. 0.734 → "73%"; below 1% but above 0 reads "<1%". */
export function formatShare(share: number): string {
  if (!Number.isFinite(share) || share <= 0) return '0%';
  if (share < 0.01) return '<1%';
  return `${Math.round(Math.min(share, 1) * 100)}%`;
}

/** A duration in milliseconds, e.g. 850 → "850 ms", 1240 → "1.2 s", 65000 → "1 min 5 s"; "—" for none. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const seconds = Math.round(ms / 1000);
  const rest = seconds % 60;
  return rest ? `${Math.floor(seconds / 60)} min ${rest} s` : `${seconds / 60} min`;
}

/** An hour of the day, e.g. 9 → "09:00". */
export function hourLabel(hour: number): string {
  return `${String(hour).padStart(2, '0')}:00`;
}

/** The share of rated answers rated good, or null without ratings. */
export function positiveShare(up: number, down: number): number | null {
  return up + down > 0 ? up / (up + down) : null;
}

const dayFormat = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const fullDayFormat = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' });

/** A YYYY-MM-DD day, short ("Jun 14") or full ("Jun 14, 2025"). */
export function formatDay(day: string, full = false): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return (full ? fullDayFormat : dayFormat).format(date);
}
