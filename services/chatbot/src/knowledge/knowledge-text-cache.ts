// The combined knowledge text of recently asked chatbots, kept in process so that a public chat
// message does not read every entry again. Each text is held under the chatbot row's version
// (updatedAt, knowledgeChars) as its validity token; the caller reads the row first on every call, so
// a text is never served for a newer version than it was read for, and nothing needs invalidating
// (docs/adr/0014-caches.md). Bounded by the characters held; a text larger than the bound is not kept.

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
