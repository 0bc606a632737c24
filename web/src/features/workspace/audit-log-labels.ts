/** The audit log's actions, as the filter offers them (an action or its prefix). */
export const AUDIT_ACTION_FILTERS: ReadonlyArray<{ value: string; label: string }> = [
  { value: '', label: 'All actions' },
  { value: 'member.', label: 'Members' },
  { value: 'member.invited', label: 'Member invited' },
  { value: 'member.joined', label: 'Member joined' },
  { value: 'member.role_changed', label: 'Role changed' },
  { value: 'member.removed', label: 'Member removed' },
  { value: 'member.left', label: 'Member left' },
  { value: 'invitation.', label: 'Invitations' },
  { value: 'ownership.transferred', label: 'Ownership transferred' },
  { value: 'workspace.', label: 'Workspace' },
  { value: 'two_factor.', label: 'Two-factor sign-in' },
  { value: 'billing.', label: 'Billing' },
];

/** "member.role_changed" reads "Member role changed". */
export function actionLabel(action: string): string {
  const words = action.replace(/[._]/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The details object as short "key: value" pairs; the raw text when it is not a JSON object. */
export function detailsSummary(details: string): string {
  try {
    const parsed: unknown = JSON.parse(details);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return Object.entries(parsed as Record<string, unknown>)
        .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join(', ');
    }
  } catch {
    // Not JSON: shown as it is.
  }
  return details === '{}' ? '' : details;
}

/** The filter's dates (yyyy-mm-dd, the browser's day) as the start of `from` and the end of `to`. */
export function dayRange(from: string, to: string): { from?: string; to?: string } {
  const start = from ? new Date(`${from}T00:00:00`) : null;
  const end = to ? new Date(`${to}T23:59:59.999`) : null;
  return {
    ...(start && !Number.isNaN(start.getTime()) ? { from: start.toISOString() } : {}),
    ...(end && !Number.isNaN(end.getTime()) ? { to: end.toISOString() } : {}),
  };
}
