import { Redis } from 'ioredis';

export { Redis };

/** A Redis connection. BullMQ workers need `maxRetriesPerRequest: null`, so every connection uses it. */
export function createRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false });
}
