// What a chatbot's visitors may spend per UTC day (issue 14), in the owner's hands
// (PublicChatbot.limits; an absent limit is no limit): messages per visitor, and dollars for the
// whole chatbot. Held in Redis so every replica counts the same messages, under keys that live
// about two days (a day's count is only read on its day).
//
//   admit    after the chatbot is known, before anything is held: ONE script checks the visitor's
//            count today and, for an answer that may cost, that the chatbot's spend today is under
//            its cap, and counts the message. A refused message counts nothing. A chatbot without
//            limits (or a free answer on a chatbot with only a spend cap) makes no Redis call.
//   reserve  once billing's ReserveCredit has held the answer's largest cost: ONE script adds that
//            amount to the day's spend unless it would pass the cap (then it is refused, the
//            visitor's count taken back, and the caller releases the credit hold). Spent + held
//            never passes the cap, whatever the concurrency and the replicas.
//   settle   once the answer is recorded: the reservation becomes the answer's exact cost, from its
//            tokens and the prices the hold was counted at (as billing debits it).
//   takeBack when the model failed: the reservation goes (nothing was spent).
//
// Money is integer pico-dollars (10^-12 $, BigInt): billing's costs are exact at 10 decimals, so
// nothing is ever rounded. Lua's numbers are doubles, exact only to 2^53 pico-dollars (about $9,007,
// under the largest cap of $10,000), so the scripts compare amounts as decimal strings.
import type { PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';

export const DAILY_LIMIT_REACHED = "You've reached today's limit for this chat. Please come back tomorrow.";
export const dailyLimitReached = () => tooMany(DAILY_LIMIT_REACHED);

/** A day's counters outlive their UTC day by a day, whatever the time zone of the question. */
export const DAY_KEY_TTL_MS = 48 * 60 * 60_000;

export const PICO_PER_DOLLAR = 10n ** 12n;
const TOKENS_PER_MILLION = 1_000_000n;
const DECIMAL = /^(\d{1,15})(?:\.(\d{1,20}))?$/;

/** Exact dollars ("5.00", "0.0001234") as integer pico-dollars; past 12 decimals rounded up, never down. Throws on anything else. */
export function toPico(dollars: string): bigint {
  const match = DECIMAL.exec(dollars.trim());
  if (!match) throw new Error(`not an amount of dollars: "${dollars.slice(0, 40)}"`);
  const [, whole, fraction = ''] = match;
  const kept = fraction.slice(0, 12).padEnd(12, '0');
  const roundUp = /[1-9]/.test(fraction.slice(12)) ? 1n : 0n;
  return BigInt(whole) * PICO_PER_DOLLAR + BigInt(kept) + roundUp;
}

/** The UTC day a message counts on: "YYYY-MM-DD". */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** A model's prices, pico-dollars per million tokens. */
export interface Prices {
  inputPerMillion: bigint;
  outputPerMillion: bigint;
}

/** What an answer costs, as billing debits it (tokens × price per million ÷ 10^6, exact for prices of up to 6 decimals; rounded up otherwise). */
export function answerCost(usage: { promptTokens: number; completionTokens: number }, prices: Prices): bigint {
  const scaled = BigInt(usage.promptTokens) * prices.inputPerMillion + BigInt(usage.completionTokens) * prices.outputPerMillion;
  return (scaled + TOKENS_PER_MILLION - 1n) / TOKENS_PER_MILLION;
}

export interface ChatbotLimits {
  visitorMessagesPerDay: number | null;
  /** Pico-dollars. */
  dailySpendCap: bigint | null;
  proofOfWork: boolean;
}

/** A chatbot's limits as the chatbot service sends them; absent (an older chatbot service) is none. Throws on a cap that is not an amount. */
export function limitsOf(chatbot: Pick<PublicChatbot, 'limits'>): ChatbotLimits {
  const limits = chatbot.limits;
  const perDay = limits?.visitorMessagesPerDay;
  const cap = limits?.dailySpendLimit;
  return {
    visitorMessagesPerDay: perDay !== undefined && perDay > 0 ? perDay : null,
    dailySpendCap: cap ? toPico(cap) : null,
    proofOfWork: limits?.proofOfWork ?? false,
  };
}

/** What admit counted for a message: the visitor's key, so a later refusal can take the count back. */
export interface DayCount {
  chatbotId: string;
  day: string;
  visitorKey: string | null;
}

/** An answer's share of the day's spend, until it is settled or taken back. */
export interface SpendReservation {
  key: string;
  amount: bigint;
  /** Null: billing did not say (an older billing); the reservation then stays as held, never less than the cost. */
  prices: Prices | null;
}

export interface DailyLimits {
  /**
   * Checks and counts one message of the visitor (by address) for the chatbot on `day`, or throws
   * RESOURCE_EXHAUSTED with the visitor's message; `mayCost`: the answer may call the model, so the
   * chatbot's spend today must also be under its cap.
   */
  admit(q: { chatbotId: string; clientIp: string | null; day: string; limits: ChatbotLimits; mayCost: boolean }): Promise<DayCount>;
  /** Adds the held amount to the day's spend, or takes the message's count back and throws RESOURCE_EXHAUSTED. */
  reserve(q: { counted: DayCount; cap: bigint; amount: bigint; prices: Prices | null }): Promise<SpendReservation>;
  /** The reservation becomes the answer's exact cost. Never throws (logged): a reservation left as held only errs on the owner's side. */
  settle(reservation: SpendReservation, usage: { promptTokens: number; completionTokens: number }, log: Logger): Promise<void>;
  /** The reservation of an answer not given goes. Never throws (logged). */
  takeBack(reservation: SpendReservation, log: Logger): Promise<void>;
  /** A counted message that got no answer (no credit, the model failed) no longer counts. Never throws (logged). */
  uncount(counted: DayCount, log: Logger): Promise<void>;
}

// value > limit for decimal integer strings (limit >= 0, value possibly negative), exact at any size.
const EXCEEDS = `
local function exceeds(value, limit)
  if string.sub(value, 1, 1) == '-' then return false end
  if #value ~= #limit then return #value > #limit end
  return value > limit
end
`;

// KEYS: the visitor's count, the chatbot's spend. ARGV: visitor limit ('' none), spend cap in
// pico-dollars ('' not checked), key TTL in ms. Returns 0 when counted, 1 when the visitor is at
// their limit, 2 when the chatbot has spent its cap.
const ADMIT = `${EXCEEDS}
if ARGV[1] ~= '' and tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[1]) then return 1 end
if ARGV[2] ~= '' and not exceeds(ARGV[2], redis.call('GET', KEYS[2]) or '0') then return 2 end
if ARGV[1] ~= '' and redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 0
`;

// KEYS: the chatbot's spend, then the visitor's count when one was counted. ARGV: amount, cap, key
// TTL in ms. Returns 0 when reserved, 1 when spent + amount would pass the cap (nothing changed but
// the visitor's count, taken back).
const RESERVE = `${EXCEEDS}
redis.call('SET', KEYS[1], '0', 'NX', 'PX', ARGV[3])
redis.call('INCRBY', KEYS[1], ARGV[1])
if exceeds(redis.call('GET', KEYS[1]), ARGV[2]) then
  redis.call('DECRBY', KEYS[1], ARGV[1])
  if KEYS[2] then redis.call('DECR', KEYS[2]) end
  return 1
end
return 0
`;

export function redisDailyLimits(
  redis: Redis,
  opts: {
    prefix: string;
    /** The visitor as analytics counts them (usage/publishers.ts visitorHash): one salted hash of the address. */
    visitorOf: (clientIp: string | null) => string;
  },
): DailyLimits {
  const keys = redisKeys(opts.prefix);
  return {
    async admit({ chatbotId, clientIp, day, limits, mayCost }) {
      const perDay = limits.visitorMessagesPerDay;
      const cap = mayCost ? limits.dailySpendCap : null;
      const visitorKey = perDay === null ? null : keys.chatLimitVisitorDay(chatbotId, day, opts.visitorOf(clientIp));
      if (perDay === null && cap === null) return { chatbotId, day, visitorKey: null };
      const result = await withRedisDeadline(
        redis.eval(
          ADMIT,
          2,
          visitorKey ?? keys.chatLimitVisitorDay(chatbotId, day, '-'),
          keys.chatLimitSpendDay(chatbotId, day),
          perDay === null ? '' : String(perDay),
          cap === null ? '' : cap.toString(),
          DAY_KEY_TTL_MS,
        ),
      );
      if (result !== 0) throw dailyLimitReached();
      return { chatbotId, day, visitorKey };
    },
    async reserve({ counted, cap, amount, prices }) {
      const key = keys.chatLimitSpendDay(counted.chatbotId, counted.day);
      const all = counted.visitorKey ? [key, counted.visitorKey] : [key];
      const result = await withRedisDeadline(redis.eval(RESERVE, all.length, ...all, amount.toString(), cap.toString(), DAY_KEY_TTL_MS));
      if (result !== 0) throw dailyLimitReached();
      return { key, amount, prices };
    },
    async settle(reservation, usage, log) {
      if (!reservation.prices) return;
      const change = answerCost(usage, reservation.prices) - reservation.amount;
      if (change === 0n) return;
      try {
        await withRedisDeadline(redis.incrby(reservation.key, change.toString()));
      } catch (err) {
        log.warn({ err: (err as Error).message }, "settling the day's spend failed; the held amount stays counted");
      }
    },
    async takeBack(reservation, log) {
      try {
        await withRedisDeadline(redis.decrby(reservation.key, reservation.amount.toString()));
      } catch (err) {
        log.warn({ err: (err as Error).message }, "taking back the day's spend failed; the held amount stays counted");
      }
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
