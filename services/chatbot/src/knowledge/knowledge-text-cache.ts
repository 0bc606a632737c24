// The whole knowledge of recently asked chatbots (one passage per ready entry, with its title and
// address for citations), kept in process so that a public chat message does not read every entry
// again. Each list is held under the chatbot row's version
// (updatedAt, knowledgeChars) as its validity token; the caller reads the row first on every call, so
// a text is never served for a newer version than it was read for, and nothing needs invalidating
// (docs/adr/0014-caches.md). Bounded by the characters held; a list larger than the bound is not kept.

import { cache } from '@parley/common/cache.ts';
import type { KnowledgePassage } from './knowledge-base.ts';

export interface KnowledgeVersion {
  id: string;
  updatedAt: Date;
  knowledgeChars: number;
}

/** About 50 MB at two bytes a UTF-16 unit. */
export const DEFAULT_KNOWLEDGE_CACHE_CHARS = 25_000_000;

export interface KnowledgeTextCache {
  /** The passages read for exactly this version of the chatbot row, if held. */
  get(version: KnowledgeVersion): KnowledgePassage[] | undefined;
  set(version: KnowledgeVersion, passages: KnowledgePassage[]): void;
  /** Characters held now (for tests and logs). */
  readonly size: number;
}

/** What a list costs to hold: its texts and titles (the rest is small and bounded). */
const charsOf = (passages: KnowledgePassage[]) => passages.reduce((n, p) => n + p.text.length + p.title.length + p.url.length, 0);

const stampOf = (v: KnowledgeVersion) => `${v.updatedAt.getTime()}:${v.knowledgeChars}`;

export function knowledgeTextCache(maxChars = DEFAULT_KNOWLEDGE_CACHE_CHARS): KnowledgeTextCache {
  const held = cache<string, KnowledgePassage[], string>({ maxSize: maxChars, sizeOf: charsOf });
  return {
    get: (version) => held.get(version.id, stampOf(version)),
    set: (version, passages) => held.set(version.id, stampOf(version), passages),
    get size() {
      return held.totalSize;
    },
  };
}
