/**
 * Who the host page said a conversation's visitor is (the widget's Parley.identify): "Jane Doe · id 42",
 * either half alone, or null when it said nothing.
 */
export function visitorLabel({ visitorId, visitorName }: { visitorId?: string | null; visitorName?: string | null }): string | null {
  const name = visitorName?.trim();
  const id = visitorId?.trim();
  const parts = [name, id ? `id ${id}` : ''].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : null;
}
