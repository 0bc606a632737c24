// The combined knowledge text of recently asked chatbots, kept in process so that a public chat
// message does not read every knowledge entry again. An entry is valid only for the exact version of
// the chatbot row it was read for: (id, updatedAt, knowledgeChars). Every knowledge change (adding
// or deleting an entry) moves updatedAt to the database's now() and changes knowledgeChars, and the
// caller reads the chatbot row (on every message, from the database) BEFORE the knowledge, so a text
// is never served for a newer version of the row than the one it was read after. Nothing is shared
// between replicas, and nothing has to be invalidated: a stale entry is simply never asked for again
// and ages out of the LRU (the kit's one cache, keyed by the row's version as its validity token).
//
// Bounded by the total characters held (least recently used out first); a text larger than the
// whole bound is not kept.

import { cache } from '@parley/common/cache.ts';

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

const stampOf = (v: KnowledgeVersion) => `${v.updatedAt.getTime()}:${v.knowledgeChars}`;

export function knowledgeTextCache(maxChars = DEFAULT_KNOWLEDGE_CACHE_CHARS): KnowledgeTextCache {
  const held = cache<string, string, string>({ maxSize: maxChars, sizeOf: (text) => text.length });
  return {
    get: (version) => held.get(version.id, stampOf(version)),
    set: (version, text) => held.set(version.id, stampOf(version), text),
    get size() {
      return held.totalSize;
    },
  };
}
