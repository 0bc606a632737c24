// Failed logins are counted in Redis, so the limits hold across replicas: per account (by a hash
// of the normalised email, so addresses are not readable in Redis) and per client IP, each in a
// fixed window that starts at the first failure. Once a count reaches its maximum, logins are
// refused before any password is checked, until the window ends.
import { createHash } from 'node:crypto';
import type { Redis } from '@parley/common/redis.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';

export interface LoginThrottleOptions {
  redis: Redis;
  /** Namespace of the keys, e.g. `parley:auth`. */
  keyPrefix: string;
  maxFailuresPerAccount: number;
  maxFailuresPerIp: number;
  windowSeconds: number;
}

export interface LoginThrottle {
  /** Throws ResourceExhausted when the account or the IP has used up its failures. */
  assertAllowed(email: string, clientIp: string): Promise<void>;
  recordFailure(email: string, clientIp: string): Promise<void>;
  clearAccount(email: string): Promise<void>;
}

// INCR and the expiry in one step: a crash between the two can never leave a counter that never
// expires. The expiry is set only when missing, so repeated failures do not extend the window.
const RECORD_FAILURES = `
for _, key in ipairs(KEYS) do
  redis.call('INCR', key)
  if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[1]) end
end
return #KEYS`;

export function createLoginThrottle(opts: LoginThrottleOptions): LoginThrottle {
  const accountKey = (email: string) => `${opts.keyPrefix}:login-failures:account:${createHash('sha256').update(email).digest('hex')}`;
  // An empty IP means the caller did not pass one (an internal call): only the account limit applies.
  const ipKey = (ip: string) => (ip ? `${opts.keyPrefix}:login-failures:ip:${ip.slice(0, 64)}` : undefined);
  const windowMs = opts.windowSeconds * 1000;

  return {
    async assertAllowed(email, clientIp) {
      const limits: [string, number][] = [[accountKey(email), opts.maxFailuresPerAccount]];
      const ip = ipKey(clientIp);
      if (ip) limits.push([ip, opts.maxFailuresPerIp]);
      const pipeline = opts.redis.multi();
      for (const [key] of limits) pipeline.get(key).pttl(key);
      const replies = (await pipeline.exec()) ?? [];
      let blockedForMs = 0;
      limits.forEach(([, max], i) => {
        const [countErr, count] = replies[2 * i];
        const [ttlErr, ttl] = replies[2 * i + 1];
        if (countErr || ttlErr) throw countErr ?? ttlErr;
        if (Number(count ?? 0) >= max) blockedForMs = Math.max(blockedForMs, Number(ttl) > 0 ? Number(ttl) : windowMs);
      });
      if (blockedForMs > 0) {
        const minutes = Math.max(1, Math.ceil(blockedForMs / 60_000));
        throw tooMany(`Too many failed login attempts. Please try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`);
      }
    },
    async recordFailure(email, clientIp) {
      const keys = [accountKey(email)];
      const ip = ipKey(clientIp);
      if (ip) keys.push(ip);
      await opts.redis.eval(RECORD_FAILURES, keys.length, ...keys, windowMs);
    },
    async clearAccount(email) {
      await opts.redis.del(accountKey(email));
    },
  };
}
