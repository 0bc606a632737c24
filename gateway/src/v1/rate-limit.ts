// Calls per key per window (API_RATE_LIMIT a minute by default), counted in Redis so every gateway
// replica counts the same calls: ONE script counts the call and answers the count and the window's
// time left, so concurrent calls cannot slip past the limit, and a refused call counts nothing. The
// window opens with its first call. Every answer carries X-RateLimit-Limit, -Remaining and -Reset
// (seconds until the window ends); a refusal is 429 with Retry-After. Below it, the failed key checks
// per client address (keyCheckLimiter), which stop a flood of wrong keys before auth.
import type { Response } from 'express';
import type { Logger } from '@parley/common/logger.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';
import type { KeyCheckGuard } from '../access/api-keys.ts';

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

export const KEY_CHECKS_THROTTLED =
  'Too many API keys that do not work from this address. Retry after the number of seconds in Retry-After.';

// KEYS: the address's counter. ARGV: limit, window in ms. Returns 0, or the ms left in the window
// when the address has used up its refusals.
const BLOCKED = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count < tonumber(ARGV[1]) then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 1 then return tonumber(ARGV[2]) end
return ttl
`;

// KEYS: the address's counter. ARGV: window in ms. Counts one refusal; the window opens with the first.
const REFUSED = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
`;

export interface KeyCheckLimiter {
  /** The guard of one request's key check (keys.ts): 429 with Retry-After once its address has had too many keys refused. */
  guard(clientIp: string, res: Response): KeyCheckGuard;
}

/**
 * Refused key checks per client address per window (API_KEY_FAILURES_PER_IP a minute by default),
 * counted in Redis across replicas: each question auth answers with a refusal counts one. Before auth
 * is asked about a secret the gateway does not hold, the address's count is read (one round trip, a
 * few times a minute per working key): past the limit the call is 429 with Retry-After and auth is
 * not asked, until the window ends. A working key is never counted; one the gateway holds is answered
 * from its cache without this read, so a flood of wrong keys from a shared address does not stop the
 * working keys used there within the last seconds. Checks in flight together are counted as they end:
 * a burst may pass the limit by its own concurrency once per window (each then asked of auth once).
 */
export function keyCheckLimiter(
  redis: Redis,
  opts: { prefix: string; limit: number; windowMs: number; logger: Pick<Logger, 'warn'> },
): KeyCheckLimiter {
  const keys = redisKeys(opts.prefix);
  return {
    guard(clientIp, res) {
      // Bounded like auth's throttles; an unknown address counts as one.
      const key = keys.apiKeyFailuresIp(clientIp.slice(0, 64) || 'unknown');
      return {
        async admit() {
          const blockedMs = Number(await withRedisDeadline(redis.eval(BLOCKED, 1, key, opts.limit, opts.windowMs)));
          if (blockedMs > 0) {
            res.setHeader('Retry-After', String(Math.max(1, Math.ceil(blockedMs / 1000))));
            throw tooMany(KEY_CHECKS_THROTTLED);
          }
        },
        async refused() {
          // The 401 goes out whatever happens here: an uncounted refusal only lets the address try once more.
          await withRedisDeadline(redis.eval(REFUSED, 1, key, opts.windowMs)).catch((err: Error) =>
            opts.logger.warn({ err: err.message }, 'counting a refused key check failed'),
          );
        },
      };
    },
  };
}
