// Tells the chat service's caches that a chatbot's public face or knowledge changed, by giving the
// chatbot a new public revision in Redis (see @parley/common/public-revision.ts). Called after the
// change is committed, before the owner is answered, so a visitor's next message sees it.
//
// The change itself is already saved, so a failure here is logged, not thrown: the owner's request
// succeeded. The chat service then keeps using what it cached for at most its cache's maximum age.
import { randomUUID } from 'node:crypto';
import type { Logger } from '@parley/common/logger.ts';
import { PUBLIC_REVISION_TTL_MS } from '@parley/common/public-revision.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';

export type PublicChange = (chatbotId: string) => Promise<void>;

/** An owner's change is already saved: its announcement waits at most this long. */
const DEADLINE_MS = 1000;

export function redisPublicRevision(redis: Redis, opts: { prefix: string; logger: Logger }): PublicChange {
  const keys = redisKeys(opts.prefix);
  return async (chatbotId) => {
    const key = keys.chatbotRevision(chatbotId.trim().toLowerCase());
    try {
      await withRedisDeadline(redis.set(key, randomUUID(), 'PX', PUBLIC_REVISION_TTL_MS), DEADLINE_MS);
    } catch (err) {
      opts.logger.error({ err: (err as Error).message, chatbotId }, 'could not announce a public change of the chatbot');
    }
  };
}
