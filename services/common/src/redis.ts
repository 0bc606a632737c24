import { Redis } from 'ioredis';
import { withDeadline } from './deadline.ts';

export { Redis };

/** A Redis connection. BullMQ workers need `maxRetriesPerRequest: null`, so every connection uses it. */
export function createRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false });
}

/**
 * A command someone is waiting on (a visitor, an owner), given a deadline: the client queues
 * commands while disconnected, so without one a Redis outage would hang the caller.
 */
export function withRedisDeadline<T>(command: Promise<T>, ms = 2000): Promise<T> {
  return withDeadline(command, ms, `Redis did not answer within ${ms} ms`);
}

/** Removes every key matching `match` (a SCAN pattern); returns how many were removed. O(keyspace): for rare clean-ups. */
export async function unlinkMatching(redis: Redis, match: string): Promise<number> {
  let removed = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    cursor = next;
    if (keys.length) removed += await redis.unlink(...keys);
  } while (cursor !== '0');
  return removed;
}
