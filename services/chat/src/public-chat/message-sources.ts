// What an answer cited, as the Message row keeps it (its "sources" column, JSONB): a list of
// { entryId, title, url? } in the order the answer's [n] markers number them (citations.ts), so the
// owner's History shows the answer as the visitor saw it. Written once with the answer; read back
// defensively, since the column is JSON to the database.
import type { Source } from './citations.ts';

interface StoredSource {
  entryId: string;
  title: string;
  url?: string;
}

/** The column's value for an answer's sources: JSON text, or null when it cited none. */
export function storedSources(sources: Source[]): string | null {
  if (sources.length === 0) return null;
  return JSON.stringify(sources.map(({ entryId, title, url }): StoredSource => (url ? { entryId, title, url } : { entryId, title })));
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The sources a stored answer cited ([] for none, or for anything that is not such a list). Items are kept, so the numbering holds. */
export function readStoredSources(value: unknown): Source[] {
  if (!Array.isArray(value)) return [];
  return value.map((item: unknown) => {
    const r = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
    return { entryId: text(r.entryId), title: text(r.title), url: text(r.url) };
  });
}
