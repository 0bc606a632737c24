// Reset requests are limited per email and per client IP in Redis, counted first and atomically
// (the login throttle's script): a mailbox cannot be flooded with reset mails, nor the service used
// to send mail in bulk. Counted whether or not an account has the email, so the limit reveals
// nothing; emails appear in keys only as a hash.
import type { RedisKeys } from '@parley/common/redis-keys.ts';
import { createHash } from 'node:crypto';
import type { Redis } from '@parley/common/redis.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';
import { acquireAttempt } from '../core/login-throttle.ts';

export const TOO_MANY_RESET_REQUESTS = 'Too many reset requests. Please try again later.';

export interface PasswordResetThrottleOptions {
  redis: Redis;
  /** Namespace of the keys, e.g. `parley:auth`. */
  keys: RedisKeys;
  maxPerEmail: number;
  maxPerIp: number;
  windowSeconds: number;
}

export interface PasswordResetThrottle {
  /** Counts one request, or throws ResourceExhausted (counting nothing) when a limit is used up. */
  acquire(email: string, clientIp: string): Promise<void>;
}

export function createPasswordResetThrottle(opts: PasswordResetThrottleOptions): PasswordResetThrottle {
  return {
    async acquire(email, clientIp) {
      const limits: [string, number][] = [
        [opts.keys.passwordResetsEmail(createHash('sha256').update(email).digest('hex')), opts.maxPerEmail],
      ];
      // An empty IP means an internal caller (the gateway always passes the client's).
      if (clientIp) limits.push([opts.keys.passwordResetsIp(clientIp.slice(0, 64)), opts.maxPerIp]);
      if ((await acquireAttempt(opts.redis, limits, opts.windowSeconds * 1000)) > 0) throw tooMany(TOO_MANY_RESET_REQUESTS);
    },
  };
}
