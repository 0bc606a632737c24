// What GetPromptKnowledge answered for a chatbot whose whole knowledge base fits the prompt, kept
// per chat instance so that a chatbot's next messages need no call to the chatbot service.
//
// An entry is used only under the public revision it was stored with (read from Redis before the
// call that fetched it, see @parley/common/public-revision.ts): the chatbot service sets a new
// revision after every change to the chatbot's name, picture, status, language or knowledge, and
// after its deletion, so a change shows on the very next message. An entry is also dropped after
// MAX_AGE_MS whatever its revision, which bounds how long a change whose announcement failed can
// go unseen. Bounded in entries and in characters; the least recently used go first.
import type { PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { lru } from '@parley/common/lru.ts';

export interface PromptCacheEntry {
  chatbot: PublicChatbot;
  passages: string[];
  /** The public revision read before the call that fetched this. */
  revision: string | null;
  /** The prompt budget the knowledge was fetched for. */
  budgetChars: number;
  storedAt: number;
}

export interface PromptCache {
  /** The entry for `uniqueId` if it is young enough, whatever its revision (the caller compares). */
  get(uniqueId: string, now?: number): PromptCacheEntry | undefined;
  set(uniqueId: string, entry: PromptCacheEntry): void;
  delete(uniqueId: string): void;
}

export const PROMPT_CACHE_MAX_AGE_MS = 60_000;

export function promptCache(opts: { maxEntries?: number; maxChars?: number; maxAgeMs?: number } = {}): PromptCache {
  const maxEntries = opts.maxEntries ?? 10_000;
  const maxChars = opts.maxChars ?? 20_000_000;
  const maxAgeMs = opts.maxAgeMs ?? PROMPT_CACHE_MAX_AGE_MS;
  const entries = lru<string, PromptCacheEntry>({
    maxEntries,
    maxSize: maxChars,
    sizeOf: (entry) => entry.passages.reduce((n, p) => n + p.length, 0) + entry.chatbot.name.length,
  });

  return {
    get(uniqueId, now = Date.now()) {
      const held = entries.get(uniqueId);
      if (held && now - held.storedAt >= maxAgeMs) {
        entries.delete(uniqueId);
        return undefined;
      }
      return held;
    },
    set: (uniqueId, entry) => entries.set(uniqueId, entry),
    delete: (uniqueId) => entries.delete(uniqueId),
  };
}
