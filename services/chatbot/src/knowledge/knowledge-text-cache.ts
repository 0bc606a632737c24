// The combined knowledge text of recently asked chatbots, kept in process so that a public chat
// message does not read every knowledge entry again. An entry is valid only for the exact version of
// the chatbot row it was read for: (id, updatedAt, knowledgeChars). Every knowledge change (adding
// or deleting an entry) moves updatedAt to the database's now() and changes knowledgeChars, and the
// caller reads the chatbot row (on every message, from the database) BEFORE the knowledge, so a text
// is never served for a newer version of the row than the one it was read after. Nothing is shared
// between replicas, and nothing has to be invalidated: a stale entry is simply never asked for again
// and ages out of the LRU.
//
// Bounded by the total characters held (least recently used out first); a text larger than the
// whole bound is not kept.

export interface KnowledgeVersion {
  id: string;
  updatedAt: Date;
  knowledgeChars: number;
}

/** About 50 MB at two bytes a UTF-16 unit. */
export const DEFAULT_KNOWLEDGE_CACHE_CHARS = 25_000_000;

export interface KnowledgeTextCache {
  /** The text read for exactly this version of the chatbot row, if held. */
  get(version: KnowledgeVersion): string | undefined;
  set(version: KnowledgeVersion, text: string): void;
  /** Characters held now (for tests and logs). */
  readonly size: number;
}

interface Held {
  stamp: string;
  text: string;
}

const stampOf = (v: KnowledgeVersion) => `${v.updatedAt.getTime()}:${v.knowledgeChars}`;

export function knowledgeTextCache(maxChars = DEFAULT_KNOWLEDGE_CACHE_CHARS): KnowledgeTextCache {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const held = new Map<string, Held>();
  let chars = 0;

  const drop = (id: string) => {
    const old = held.get(id);
    if (!old) return;
    held.delete(id);
    chars -= old.text.length;
  };

  return {
    get(version) {
      const entry = held.get(version.id);
      if (!entry) return undefined;
      if (entry.stamp !== stampOf(version)) return undefined;
      held.delete(version.id);
      held.set(version.id, entry);
      return entry.text;
    },
    set(version, text) {
      drop(version.id);
      if (text.length > maxChars) return;
      held.set(version.id, { stamp: stampOf(version), text });
      chars += text.length;
      for (const id of held.keys()) {
        if (chars <= maxChars) break;
        drop(id);
      }
    },
    get size() {
      return chars;
    },
  };
}
