// Reason codes (docs/product.md, "Reason codes"): why an answer could not help, on each handoff and
// each unanswered question. The codes are the API's; the labels are what the dashboard shows.

export const REASON_CODES = ['missing_knowledge', 'asked_for_person', 'not_supported', 'action_failed', 'limit_reached'] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export const REASON_LABELS: Record<ReasonCode, string> = {
  missing_knowledge: 'Missing knowledge',
  asked_for_person: 'Asked for a person',
  not_supported: 'Not supported',
  action_failed: 'Action failed',
  limit_reached: 'Limit reached',
};

/** A reason's label; an unknown or missing one (a request from before reasons were kept) reads "No reason". */
export const reasonLabel = (reason: string | null | undefined): string =>
  reason && reason in REASON_LABELS ? REASON_LABELS[reason as ReasonCode] : 'No reason';

/** The select's options: every reason, first "All reasons" (''). */
export const REASON_FILTER_OPTIONS = [
  { value: '', label: 'All reasons' },
  ...REASON_CODES.map((code) => ({ value: code, label: REASON_LABELS[code] })),
];

/** How many of `items` carry each reason, weighing each by `weight` (a group's question count), in the codes' order, zeros left out. */
export function countByReason<T extends { reason?: string | null }>(items: readonly T[], weight: (item: T) => number = () => 1) {
  return REASON_CODES.map((code) => ({
    code,
    label: REASON_LABELS[code],
    count: items.filter((item) => (item.reason ?? 'missing_knowledge') === code).reduce((n, item) => n + weight(item), 0),
  })).filter((r) => r.count > 0);
}

/** The items of one reason ('' for all); an item without one counts as missing_knowledge, the one rule there was before. */
export const withReason = <T extends { reason?: string | null }>(items: readonly T[], reason: string): T[] =>
  reason ? items.filter((item) => (item.reason ?? 'missing_knowledge') === reason) : [...items];
