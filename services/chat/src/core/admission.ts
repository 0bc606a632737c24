// Abuse protection for the public chat, held in Redis so every replica counts the same messages:
// each visitor (by IP) may send so many messages a minute to one chatbot, and each chatbot may
// receive so many from everyone together. Each counter's one-minute window opens with the first
// message it counts (not on the clock's minute, so what a visitor sees does not depend on when they
// start); one Lua script checks and counts both, so concurrent messages cannot slip past the limit
// and a refused message counts nothing.
//
// The same script then reads what the message's other collaborators asked for, so a message pays
// one Redis round trip for all of it. For a chatbot this replica knows, each collaborator that
// reads along (a `ReadAlong`: the chatbot's public revision in chatbot-context.ts, the kept turns
// in history-source.ts, the handoff mirror in handoff/visitor-message.ts) names its own key, or
// none for this message; admission reads them and hands back a `Sighting` in which each looks up
// its own key again. Admission knows nothing of those keys nor of what they hold.
import type { Logger } from '@parley/common/logger.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';
import { ConnectError } from '@connectrpc/connect';
import { answerFailed } from './visitor-errors.ts';

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

/** The chatbot this replica last answered for under a uniqueId (chatbot-context.ts): a guess until the chatbot service confirms it. */
export interface KnownChatbot {
  id: string;
  ownerId: string;
  /** Handoff to a person was on (its mirror is then read along; docs/adr/0034-humans-in-the-loop.md). */
  handoffOn?: boolean;
}

export const sameChatbot = (a: KnownChatbot, b: KnownChatbot) => a.id === b.id && a.ownerId === b.ownerId;

/** The conversation a message belongs to: its session id, and whether the id was issued for this message. */
export interface AdmittedConversation {
  sessionId: string;
  newConversation: boolean;
}

/** A collaborator that has a value of its own read in admission's round trip. */
export interface ReadAlong {
  /** Its key for a message to `known` in `conversation`; null: nothing to read for this message. */
  readAlong(known: KnownChatbot, conversation: AdmittedConversation): string | null;
}

/** What admission read along for the chatbot this replica knew, only a sighting until the chatbot service confirms it. */
export interface Sighting {
  chatbot: KnownChatbot;
  /** The value read under `key` (null: no such key in Redis); undefined: `key` was not read. */
  valueAt(key: string): string | null | undefined;
}

export const sighting = (chatbot: KnownChatbot, values: ReadonlyMap<string, string | null>): Sighting => ({
  chatbot,
  valueAt: (key) => values.get(key),
});

/**
 * Admission's step of a message: counts it against the rate limits as `rateLimited` (throwing the
 * visitor's limit) and, for a chatbot this replica knows, reads what each of `readers` asks for in
 * the same round trip. Null: no chatbot was known, nothing was read.
 */
export async function admitMessage(
  deps: { admission: Admission; logger: Logger },
  message: AdmittedConversation & { uniqueId: string; rateLimited: string | null },
  known: KnownChatbot | undefined,
  readers: readonly ReadAlong[],
): Promise<Sighting | null> {
  const keys = known ? readers.map((r) => r.readAlong(known, message)).filter((key): key is string => key !== null) : [];
  let values: (string | null)[];
  try {
    values = await deps.admission.admit({ uniqueId: message.uniqueId, clientIp: message.rateLimited }, keys);
  } catch (err) {
    if (err instanceof ConnectError) throw err; // the visitor's limit
    deps.logger.warn({ err: (err as Error).message }, 'rate limit check failed');
    throw answerFailed();
  }
  return known ? sighting(known, new Map(keys.map((key, i) => [key, values[i] ?? null]))) : null;
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
