import type { WebhookDeliveryStatus } from '../../gql/graphql';

/** A delivery's status as the log shows it. */
export const DELIVERY_STATUS_LABELS: Record<WebhookDeliveryStatus, string> = {
  PENDING: 'Pending',
  SUCCEEDED: 'Succeeded',
  FAILED: 'Failed',
};

/** How long an attempt took: "—" before the first, milliseconds under a second, seconds above. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** The answer's HTTP status, or "—" when no answer came. */
export function httpStatusLabel(status: number | null | undefined): string {
  return status ? String(status) : '—';
}

/** "2 events" or the one event's type, for a compact summary. */
export function eventsSummary(events: readonly string[]): string {
  return events.length === 1 ? events[0] : `${events.length} events`;
}
