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
