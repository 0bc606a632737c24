// Abuse protection for the public chat, held in Redis so every replica counts the same messages:
// each visitor (by IP) may send so many messages a minute to one chatbot, and each chatbot may
// receive so many from everyone together. Each counter's one-minute window opens with the first
// message it counts (not on the clock's minute, so what a visitor sees does not depend on when they
// start); one Lua script checks and counts both, so concurrent messages cannot slip past the limit
// and a refused message counts nothing.
//
// The same script then reads the keys the caller names (the chatbot's public revision, the
// conversation's kept turns): a message pays one Redis round trip for all of it. Admission knows
// nothing of what those keys hold; their owners (chatbot-context.ts, history-source.ts) read them.
import { redisKeys } from '@parley/common/redis-keys.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';

export const VISITOR_RATE_LIMITED = 'You are sending messages too quickly. Please wait a minute and try again.';
export const CHATBOT_RATE_LIMITED = 'This chatbot is receiving too many messages right now. Please try again in a minute.';

const WINDOW_MS = 60_000;

// KEYS: visitor counter, chatbot counter, then the keys to read. ARGV: visitor limit, chatbot
// limit, window in ms. Returns {0, value or false, ...} when counted, {1} when the visitor is over
// their limit, {2} when the chatbot is.
const SCRIPT = `
local visitor = tonumber(redis.call('GET', KEYS[1]) or '0')
if visitor >= tonumber(ARGV[1]) then return {1} end
local chatbot = tonumber(redis.call('GET', KEYS[2]) or '0')
if chatbot >= tonumber(ARGV[2]) then return {2} end
for i = 1, 2 do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
end
local out = {0}
for i = 3, #KEYS do out[i - 1] = redis.call('GET', KEYS[i]) end
return out
`;

export interface RateLimits {
  perVisitor: number;
  perChatbot: number;
}

export interface Admission {
  /**
   * Counts one message, or throws RESOURCE_EXHAUSTED with the visitor's message when over a limit;
   * once counted, the values of `alsoRead` in their order (null for a missing key).
   */
  admit(visitor: { uniqueId: string; clientIp: string | null }, alsoRead: readonly string[]): Promise<(string | null)[]>;
}

export function redisAdmission(redis: Redis, opts: { prefix: string; rateLimits: RateLimits }): Admission {
  const keys = redisKeys(opts.prefix);
  return {
    async admit({ uniqueId, clientIp }, alsoRead) {
      // Visitors whose address the gateway could not tell share one allowance per chatbot.
      const counters = [keys.chatRateVisitor(uniqueId, clientIp ?? 'unknown'), keys.chatRateChatbot(uniqueId)];
      const all = [...counters, ...alsoRead];
      const [result, ...values] = (await withRedisDeadline(
        redis.eval(SCRIPT, all.length, ...all, opts.rateLimits.perVisitor, opts.rateLimits.perChatbot, WINDOW_MS),
      )) as [number, ...(string | null | undefined)[]];
      if (result === 1) throw tooMany(VISITOR_RATE_LIMITED);
      if (result === 2) throw tooMany(CHATBOT_RATE_LIMITED);
      return alsoRead.map((_, i) => values[i] ?? null);
    },
  };
}
