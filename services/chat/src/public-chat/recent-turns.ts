// A conversation's recent turns, kept in Redis beside the stored conversation (ADR 0008), so the
// admission script that counts the rate limits also reads the next prompt's history. PostgreSQL stays
// the record and the fallback (first message, idle past RECENT_TURNS_TTL_MS, Redis lost its data).
// Two messages of one session answered at once: the second to finish wins the kept list (both are
// stored in the conversation); the chat page sends one message at a time.
import { unlinkMatching, withRedisDeadline, type Redis } from '@parley/common/redis.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import type { Turn } from './build-prompt.ts';

/** How long a conversation's turns are kept after its last exchange. */
export const RECENT_TURNS_TTL_MS = 30 * 60_000;
/** As many messages as the database read gives the prompt at most (conversation-store.ts). */
export const MAX_KEPT_MESSAGES = 40;

/** The turns an entry holds; null for an entry that is not a list of turns (never trusted blindly). */
export function parseRecentTurns(raw: string): Turn[] | null {
  try {
    const value = JSON.parse(raw) as unknown;
    if (!Array.isArray(value)) return null;
    const turns: Turn[] = [];
    for (const t of value) {
      if (!t || typeof t !== 'object') return null;
      const { role, content } = t as Record<string, unknown>;
      if ((role !== 'user' && role !== 'assistant') || typeof content !== 'string') return null;
      turns.push({ role, content });
    }
    return turns;
  } catch {
    return null;
  }
}

export interface RecentTurns {
  /** Keeps `turns` (the history the prompt used, then the new exchange) as the conversation's recent turns. */
  keep(chatbotId: string, sessionId: string, turns: Turn[]): Promise<void>;
  /** Drops what is kept for one conversation (after a failed keep, so that no older list stands). */
  forget(chatbotId: string, sessionId: string): Promise<void>;
  /** Forgets every conversation of a deleted chatbot; returns how many were kept. */
  forgetChatbot(chatbotId: string): Promise<number>;
}

export function redisRecentTurns(redis: Redis, prefix: string): RecentTurns {
  const keys = redisKeys(prefix);
  return {
    async keep(chatbotId, sessionId, turns) {
      const kept = turns.slice(-MAX_KEPT_MESSAGES).map(({ role, content }) => ({ role, content }));
      await withRedisDeadline(redis.set(keys.chatTurns(chatbotId, sessionId), JSON.stringify(kept), 'PX', RECENT_TURNS_TTL_MS));
    },
    async forget(chatbotId, sessionId) {
      await withRedisDeadline(redis.del(keys.chatTurns(chatbotId, sessionId)));
    },
    async forgetChatbot(chatbotId) {
      // Only an id as chatbots have (no pattern characters). Deleting a chatbot is rare: a scan of
      // the keyspace for its entries is affordable then.
      if (!/^[0-9a-f-]{36}$/i.test(chatbotId)) return 0;
      return unlinkMatching(redis, keys.chatTurnsOfChatbot(chatbotId));
    },
  };
}
