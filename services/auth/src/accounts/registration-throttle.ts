// Sign-ups are limited per client IP in Redis (so the limit holds across replicas): free accounts are
// cheap to make, and each one costs an Argon2 hash and a billing account. Counted first, atomically.
import type { RedisKeys } from '@parley/common/redis-keys.ts';
import type { Redis } from '@parley/common/redis.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';
import { acquireAttempt, throttledMessage } from '../core/login-throttle.ts';

export interface RegistrationThrottleOptions {
  redis: Redis;
  /** Namespace of the keys, e.g. `parley:auth`. */
  keys: RedisKeys;
  maxPerIp: number;
  windowSeconds: number;
}

export interface RegistrationThrottle {
  /** Counts one sign-up attempt, or throws ResourceExhausted once the IP has used up its window. */
  acquire(clientIp: string): Promise<void>;
}

export function createRegistrationThrottle(opts: RegistrationThrottleOptions): RegistrationThrottle {
  return {
    async acquire(clientIp) {
      // An empty IP means an internal caller (the gateway always passes the client's).
      if (!clientIp) return;
      const key = opts.keys.registrationsIp(clientIp.slice(0, 64));
      const blockedForMs = await acquireAttempt(opts.redis, [[key, opts.maxPerIp]], opts.windowSeconds * 1000);
      if (blockedForMs > 0) throw tooMany(throttledMessage(blockedForMs, 'sign-ups from this address'));
    },
  };
}
