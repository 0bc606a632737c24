// The sources an answer cites (ADR 16): `[n]` in the answer is sources[n - 1]. The same shape
// arrives from the server (a reply, the owner's History) and comes back from localStorage, so all pass through one reader.

export interface ChatSource {
  entryId: string;
  title: string;
  /** Only an absolute http(s) address; anything else is shown as a title, never as a link. */
  url?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function webAddress(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The sources in `value`, or [] when it is not a list. Items are kept (never dropped) so the
 * numbering still matches the answer's markers; one without a title falls back to its address.
 */
export function readSources(value: unknown): ChatSource[] {
  if (!Array.isArray(value)) return [];
  return value.map((item: unknown) => {
    const fields = isRecord(item) ? item : {};
    const url = webAddress(fields.url);
    const title = typeof fields.title === 'string' && fields.title.trim() ? fields.title.trim() : (url ?? 'Untitled source');
    const entryId = typeof fields.entryId === 'string' ? fields.entryId : '';
    return url ? { entryId, title, url } : { entryId, title };
  });
}
