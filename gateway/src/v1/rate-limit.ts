// Calls per key per window (API_RATE_LIMIT a minute by default), counted in Redis so every gateway
// replica counts the same calls: ONE script counts the call and answers the count and the window's
// time left, so concurrent calls cannot slip past the limit, and a refused call counts nothing. The
// window opens with its first call. Every answer carries X-RateLimit-Limit, -Remaining and -Reset
// (seconds until the window ends); a refusal is 429 with Retry-After.
import type { Response } from 'express';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';

export const KEY_RATE_LIMITED = 'Too many requests for this API key. Retry after the number of seconds in Retry-After.';

// KEYS: the key's counter. ARGV: limit, window in ms. Returns {count after this call (limit + 1 when
// refused, uncounted), ms left in the window}.
const SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then return {count + 1, redis.call('PTTL', KEYS[1])} end
count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {count, redis.call('PTTL', KEYS[1])}
`;

export interface KeyRateLimiter {
  /** Counts one call of the key and sets the headers; throws RESOURCE_EXHAUSTED past the limit. */
  admit(apiKeyId: string, res: Response): Promise<void>;
}

export function keyRateLimiter(redis: Redis, opts: { prefix: string; limit: number; windowMs: number }): KeyRateLimiter {
  const keys = redisKeys(opts.prefix);
  return {
    async admit(apiKeyId, res) {
      const [count, ttl] = (await withRedisDeadline(redis.eval(SCRIPT, 1, keys.apiRateKey(apiKeyId), opts.limit, opts.windowMs))) as [
        number,
        number,
      ];
      const resetSeconds = Math.max(1, Math.ceil((ttl > 0 ? ttl : opts.windowMs) / 1000));
      res.setHeader('X-RateLimit-Limit', String(opts.limit));
      res.setHeader('X-RateLimit-Remaining', String(Math.max(0, opts.limit - count)));
      res.setHeader('X-RateLimit-Reset', String(resetSeconds));
      if (count > opts.limit) {
        res.setHeader('Retry-After', String(resetSeconds));
        throw tooMany(KEY_RATE_LIMITED);
      }
    },
  };
}
