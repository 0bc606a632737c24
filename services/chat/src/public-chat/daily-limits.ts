// What a chatbot's visitors may do per UTC day, in the owner's hands (PublicChatbot.limits; an
// absent limit is no limit): messages per visitor, counted here, in Redis, so every replica counts
// the same messages, under keys that live about two days (a day's count is only read on its day).
// The chatbot's daily spend limit is money, and billing decides it with the credit hold
// (credit-hold.ts): this service only passes it along.
//
//   count    after the chatbot is known, before anything is held: ONE script checks the visitor's
//            count today and counts the message. A refused message counts nothing. A chatbot without
//            a visitor limit makes no Redis call.
//   uncount  a counted message that got no answer (no credit, the spend limit, the model failed)
//            no longer counts.
import type { PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';
import { limitStop } from '../core/reasons.ts';

export const DAILY_LIMIT_REACHED = "You've reached today's limit for this chat. Please come back tomorrow.";
export const dailyLimitReached = () => tooMany(DAILY_LIMIT_REACHED);

/** A day's counters outlive their UTC day by a day, whatever the time zone of the question. */
export const DAY_KEY_TTL_MS = 48 * 60 * 60_000;

/** The UTC day a message counts on: "YYYY-MM-DD". */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

export interface VisitorLimits {
  visitorMessagesPerDay: number | null;
  /** Exact decimal dollars as the chatbot service sends them, for billing's hold; null: none. */
  dailySpendLimit: string | null;
  proofOfWork: boolean;
}

/** A chatbot's visitor limits as the chatbot service sends them; absent (an older chatbot service) is none. */
export function visitorLimitsOf(chatbot: Pick<PublicChatbot, 'limits'>): VisitorLimits {
  const limits = chatbot.limits;
  const perDay = limits?.visitorMessagesPerDay;
  return {
    visitorMessagesPerDay: perDay !== undefined && perDay > 0 ? perDay : null,
    dailySpendLimit: limits?.dailySpendLimit || null,
    proofOfWork: limits?.proofOfWork ?? false,
  };
}

/** What count counted for a message: the visitor's key, so a later refusal can take the count back. */
export interface DayCount {
  chatbotId: string;
  day: string;
  visitorKey: string | null;
}

export interface DailyMessageCounter {
  /**
   * Checks and counts one message of the visitor (by address) for the chatbot on `day`, or throws
   * RESOURCE_EXHAUSTED with the visitor's message.
   */
  count(q: { chatbotId: string; clientIp: string | null; day: string; visitorLimits: VisitorLimits }): Promise<DayCount>;
  /** A counted message that got no answer (no credit, the spend limit, the model failed) no longer counts. Never throws (logged). */
  uncount(counted: DayCount, log: Logger): Promise<void>;
}

// KEYS: the visitor's count. ARGV: the visitor's limit, key TTL in ms. Returns 0 when counted, 1
// when the visitor is at their limit.
const COUNT = `
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[1]) then return 1 end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

export function redisDailyMessageCounter(
  redis: Redis,
  opts: {
    prefix: string;
    /** The visitor as analytics counts them (usage/publishers.ts visitorHash): one salted hash of the address. */
    visitorOf: (clientIp: string | null) => string;
  },
): DailyMessageCounter {
  const keys = redisKeys(opts.prefix);
  return {
    async count({ chatbotId, clientIp, day, visitorLimits }) {
      const perDay = visitorLimits.visitorMessagesPerDay;
      if (perDay === null) return { chatbotId, day, visitorKey: null };
      const visitorKey = keys.chatLimitVisitorDay(chatbotId, day, opts.visitorOf(clientIp));
      const result = await withRedisDeadline(redis.eval(COUNT, 1, visitorKey, String(perDay), DAY_KEY_TTL_MS));
      if (result !== 0) throw limitStop(dailyLimitReached());
      return { chatbotId, day, visitorKey };
    },
    async uncount(counted, log) {
      if (!counted.visitorKey) return;
      try {
        await withRedisDeadline(redis.decr(counted.visitorKey));
      } catch (err) {
        log.warn({ err: (err as Error).message }, "giving back the visitor's message failed; it stays counted today");
      }
    },
  };
}
