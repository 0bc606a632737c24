// Abuse protection for the public chat, held in Redis so every replica counts the same messages:
// each visitor (by IP) may send so many messages a minute to one chatbot, and each chatbot may
// receive so many from everyone together. Each counter's one-minute window opens with the first
// message it counts (not on the clock's minute, so what a visitor sees does not depend on when they start);
// one Lua script checks and counts both, so concurrent messages cannot slip past the limit and a
// refused message counts nothing. When the caller knows the chatbot's id, the same script also
// reads the chatbot's public revision (see @parley/common/public-revision.ts), so the chat service
// can tell whether what it cached is current, and the conversation's recent turns (recent-turns.ts),
// both without another round trip.
import { tooMany } from '@parley/common/rpc-errors.ts';
import { publicRevisionKey } from '@parley/common/public-revision.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';
import { recentTurnsKey } from './recent-turns.ts';

export const VISITOR_RATE_LIMITED = 'You are sending messages too quickly. Please wait a minute and try again.';
export const CHATBOT_RATE_LIMITED = 'This chatbot is receiving too many messages right now. Please try again in a minute.';

const WINDOW_MS = 60_000;

// KEYS: visitor counter, chatbot counter, optionally the chatbot's public revision and the
// conversation's recent turns. ARGV: visitor limit, chatbot limit, window in ms. Returns
// {0, revision or nil, turns or nil} when counted, {1} when the visitor is over their limit, {2}
// when the chatbot is.
const SCRIPT = `
local visitor = tonumber(redis.call('GET', KEYS[1]) or '0')
if visitor >= tonumber(ARGV[1]) then return {1} end
local chatbot = tonumber(redis.call('GET', KEYS[2]) or '0')
if chatbot >= tonumber(ARGV[2]) then return {2} end
for i = 1, 2 do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
end
local revision = false
local turns = false
if KEYS[3] then revision = redis.call('GET', KEYS[3]) end
if KEYS[4] then turns = redis.call('GET', KEYS[4]) end
return {0, revision, turns}
`;

export interface RateLimits {
  perVisitor: number;
  perChatbot: number;
}

export interface Admission {
  /** The public revision of `revisionOf`: null when it has none; undefined when none was asked for. */
  revision: string | null | undefined;
  /** The recent turns kept for (`revisionOf`, `sessionId`), as stored: null when none; undefined when not asked. */
  turns: string | null | undefined;
}

export interface ChatRateLimiter {
  /**
   * Counts one message, or throws RESOURCE_EXHAUSTED with the visitor's message when over a limit.
   * With `revisionOf` (a chatbot id), also reads that chatbot's public revision and, with a
   * `sessionId` too, the recent turns kept for that conversation.
   */
  take(input: { uniqueId: string; clientIp: string | null; revisionOf?: string; sessionId?: string }): Promise<Admission>;
}

export function redisRateLimiter(redis: Redis, opts: { prefix: string; limits: RateLimits }): ChatRateLimiter {
  return {
    async take({ uniqueId, clientIp, revisionOf, sessionId }) {
      // Visitors whose address the gateway could not tell share one allowance per chatbot.
      const visitor = clientIp ?? 'unknown';
      const keys = [
        `${opts.prefix}:chat-rate:visitor:${uniqueId}:${visitor}`,
        `${opts.prefix}:chat-rate:chatbot:${uniqueId}`,
      ];
      const withTurns = Boolean(revisionOf && sessionId);
      if (revisionOf) keys.push(publicRevisionKey(opts.prefix, revisionOf));
      if (withTurns) keys.push(recentTurnsKey(opts.prefix, revisionOf!, sessionId!));
      const [result, revision, turns] = (await withRedisDeadline(
        redis.eval(SCRIPT, keys.length, ...keys, opts.limits.perVisitor, opts.limits.perChatbot, WINDOW_MS),
      )) as [number, string | null | undefined, string | null | undefined];
      if (result === 1) throw tooMany(VISITOR_RATE_LIMITED);
      if (result === 2) throw tooMany(CHATBOT_RATE_LIMITED);
      return { revision: revisionOf ? (revision ?? null) : undefined, turns: withTurns ? (turns ?? null) : undefined };
    },
  };
}
