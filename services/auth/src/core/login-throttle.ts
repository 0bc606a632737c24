// Login attempts are counted in Redis, so the limits hold across replicas. Every attempt is counted
// FIRST, atomically, before any password is checked: concurrent guesses cannot all slip past a read
// that happened before the others were counted. A right password then gives its count back.
//
// Three counters, each in a fixed window that starts at its first attempt:
// - per (client IP, account): the tight limit; a guesser is stopped here without touching the owner,
//   and the owner's own successful login clears it;
// - per client IP, across accounts: stops spraying one password over many accounts;
// - per account, from anywhere: a much higher ceiling against distributed guessing, high enough that
//   one attacker address cannot lock the owner out.
// Accounts appear in keys only as a hash of the normalised email, so addresses are not readable in Redis.
import type { RedisKeys } from '@parley/common/redis-keys.ts';
import { createHash } from 'node:crypto';
import type { Redis } from '@parley/common/redis.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';

export interface LoginThrottleOptions {
  redis: Redis;
  /** Namespace of the keys, e.g. `parley:auth`. */
  keys: RedisKeys;
  maxFailuresPerIpAndAccount: number;
  maxFailuresPerIp: number;
  maxFailuresPerAccount: number;
  windowSeconds: number;
}

export interface LoginThrottle {
  /** Counts one attempt, or throws ResourceExhausted (counting nothing) when a limit is used up. */
  acquire(email: string, clientIp: string): Promise<void>;
  /** After a right password: clears the (IP, account) counter and gives back the attempt's other counts. */
  succeeded(email: string, clientIp: string): Promise<void>;
}

// Checks every limit, then counts on all keys, in one script: Redis runs it atomically. The expiry is
// set only when missing, so further attempts do not extend the window. Returns 0, or the ms left on
// the longest block.
const ACQUIRE = `
local blocked = 0
for i, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key) or '0')
  if count >= tonumber(ARGV[i + 1]) then
    local ttl = redis.call('PTTL', key)
    if ttl < 0 then ttl = tonumber(ARGV[1]) end
    if ttl > blocked then blocked = ttl end
  end
end
if blocked > 0 then return blocked end
for _, key in ipairs(KEYS) do
  redis.call('INCR', key)
  if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[1]) end
end
return 0`;

// KEYS[1] is the (IP, account) counter, deleted; the others get one attempt back.
const SUCCEEDED = `
redis.call('DEL', KEYS[1])
for i = 2, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 0`;

/** Counts one attempt on every key unless one is at its max; returns 0, or the ms left on the block. */
export async function acquireAttempt(redis: Redis, limits: [key: string, max: number][], windowMs: number): Promise<number> {
  return Number(await redis.eval(ACQUIRE, limits.length, ...limits.map(([k]) => k), windowMs, ...limits.map(([, max]) => max)));
}

export function throttledMessage(blockedForMs: number, what = 'failed login attempts'): string {
  const minutes = Math.max(1, Math.ceil(blockedForMs / 60_000));
  return `Too many ${what}. Please try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
}

export function createLoginThrottle(opts: LoginThrottleOptions): LoginThrottle {
  const accountHash = (email: string) => createHash('sha256').update(email).digest('hex');
  // An empty IP means the caller did not pass one (an internal call): those share one "IP" for the
  // (IP, account) limit, and the per-IP limit does not apply.
  const ipPart = (ip: string) => ip.slice(0, 64);
  const keysOf = (email: string, clientIp: string): [string, number][] => {
    const account = accountHash(email);
    const keys: [string, number][] = [[opts.keys.loginFailuresIpAccount(ipPart(clientIp), account), opts.maxFailuresPerIpAndAccount]];
    if (clientIp) keys.push([opts.keys.loginFailuresIp(ipPart(clientIp)), opts.maxFailuresPerIp]);
    keys.push([opts.keys.loginFailuresAccount(account), opts.maxFailuresPerAccount]);
    return keys;
  };
  const windowMs = opts.windowSeconds * 1000;

  return {
    async acquire(email, clientIp) {
      const blockedForMs = await acquireAttempt(opts.redis, keysOf(email, clientIp), windowMs);
      if (blockedForMs > 0) throw tooMany(throttledMessage(blockedForMs));
    },
    async succeeded(email, clientIp) {
      const keys = keysOf(email, clientIp).map(([k]) => k);
      await opts.redis.eval(SUCCEEDED, keys.length, ...keys);
    },
  };
}
