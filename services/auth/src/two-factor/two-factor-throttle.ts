// The second step of a two-factor sign-in has its own limits, counted like the login's
// (core/login-throttle.ts): every attempt first, atomically, in Redis; a right code gives it back.
// A 6-digit code is guessable in a way a password is not, so the limits are per account (from
// anywhere: a leaked password must not buy a million guesses from a million addresses) and per client
// IP (across accounts). A right code clears the account's count (its owner has shown the factor) and
// gives the address its attempt back. Accounts appear in keys by their id.
import type { Redis } from '@parley/common/redis.ts';
import type { RedisKeys } from '@parley/common/redis-keys.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';
import { acquireAttempt, throttledMessage } from '../core/login-throttle.ts';

export interface TwoFactorThrottleOptions {
  redis: Redis;
  keys: RedisKeys;
  maxFailuresPerAccount: number;
  maxFailuresPerIp: number;
  windowSeconds: number;
}

export interface TwoFactorThrottle {
  /** Counts one attempt, or throws ResourceExhausted (counting nothing) when a limit is used up. */
  acquire(userId: string, clientIp: string): Promise<void>;
  /** After a right code: clears the account's count and gives the address its attempt back. */
  succeeded(userId: string, clientIp: string): Promise<void>;
}

// KEYS[1] is the account's counter, deleted; the address's gets one attempt back.
const SUCCEEDED = `
redis.call('DEL', KEYS[1])
for i = 2, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 0`;

export const TWO_FACTOR_THROTTLED_WHAT = 'wrong two-factor codes';

export function createTwoFactorThrottle(opts: TwoFactorThrottleOptions): TwoFactorThrottle {
  // An empty IP (an internal call) is counted per account only.
  const keysOf = (userId: string, clientIp: string): [string, number][] => {
    const keys: [string, number][] = [[opts.keys.twoFactorFailuresAccount(userId), opts.maxFailuresPerAccount]];
    if (clientIp) keys.push([opts.keys.twoFactorFailuresIp(clientIp.slice(0, 64)), opts.maxFailuresPerIp]);
    return keys;
  };
  return {
    async acquire(userId, clientIp) {
      const blockedForMs = await acquireAttempt(opts.redis, keysOf(userId, clientIp), opts.windowSeconds * 1000);
      if (blockedForMs > 0) throw tooMany(throttledMessage(blockedForMs, TWO_FACTOR_THROTTLED_WHAT));
    },
    async succeeded(userId, clientIp) {
      const keys = keysOf(userId, clientIp).map(([k]) => k);
      await opts.redis.eval(SUCCEEDED, keys.length, ...keys);
    },
  };
}
