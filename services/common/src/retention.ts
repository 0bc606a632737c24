// The one rule of a retention window (docs/adr/0048-retention-windows.md, docs/adr/0059-retention-in-every-service.md):
// 7 to 36,500 days, or forever (null). Every service that holds a workspace's data keeps its own
// windows with that data and checks them here.
import { invalid } from './rpc-errors.ts';

export const MIN_RETENTION_DAYS = 7;
export const MAX_RETENTION_DAYS = 36_500;
export const RETENTION_DAYS_INVALID = `A retention window is ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS.toLocaleString('en-US')} days, or forever.`;
const DAY_MS = 24 * 3600_000;
/** How often each service sweeps what is past its windows. */
export const RETENTION_SWEEP_EVERY_MS = 3600_000;

/** A window in days, checked; null or undefined: forever. INVALID_ARGUMENT otherwise. */
export function parseRetentionDays(days: number | null | undefined): number | null {
  if (days === null || days === undefined) return null;
  if (!Number.isInteger(days) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS) throw invalid(RETENTION_DAYS_INVALID);
  return days;
}

/** The moment before which a `days` window deletes at `now` (ISO), or null for forever. */
export const retentionCutoff = (now: Date, days: number | null): string | null =>
  days === null ? null : new Date(now.getTime() - days * DAY_MS).toISOString();
