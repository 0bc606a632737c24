// Whose own provider keys just changed, announced on one Redis pub/sub channel after the change
// commits, so every chat replica's cache of the decrypted keys forgets that owner at once (as
// services/common/src/access-changes.ts announces access changes). The message is the owner's id
// alone: it names no key, so a forged or lost one only causes a needless reload or a stale entry
// until OWN_KEYS_MAX_AGE_MS.
import { randomBytes } from 'node:crypto';
import type { Logger } from '@parley/common/logger.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';

const OWNER_ID = /^[\w-]{1,64}$/;

/** Publishes the change; never throws (the change is committed: a replica that misses it reloads when its entry expires). */
export function providerKeyChangePublisher(redis: Redis, prefix: string, logger: Logger) {
  const channel = redisKeys(prefix).providerKeysChannel();
  return async (ownerId: string): Promise<void> => {
    try {
      await withRedisDeadline(redis.publish(channel, ownerId));
    } catch (err) {
      logger.warn(
        { err: (err as Error).message },
        'could not announce a provider key change; other replicas see it when their entry expires',
      );
    }
  };
}

export interface ProviderKeyWatch {
  /** Resolves once Redis confirmed the subscription. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens on a connection of its own. `onChange` gets each owner; `onGap` is called when the
 * connection came back after a loss (what was published meanwhile is gone: forget everything).
 */
export function watchProviderKeyChanges(
  redis: Redis,
  prefix: string,
  handlers: { onChange(ownerId: string): void; onGap(): void },
  logger: Logger,
): ProviderKeyWatch {
  const channel = redisKeys(prefix).providerKeysChannel();
  const subscriber = redis.duplicate({ connectionName: `provider-key-watch-${randomBytes(4).toString('hex')}` });
  let lost = false;
  let closed = false;
  subscriber.on('error', (err) => logger.warn({ err: err.message }, 'provider key watch: redis subscriber error'));
  subscriber.on('close', () => {
    if (!closed) lost = true;
  });
  subscriber.on('ready', () => {
    if (!lost) return;
    lost = false;
    handlers.onGap();
  });
  subscriber.on('message', (from: string, message: string) => {
    if (from === channel && OWNER_ID.test(message)) handlers.onChange(message);
  });
  const ready = withRedisDeadline(subscriber.subscribe(channel), 5000).then(
    () => undefined,
    (err: Error) => logger.warn({ err: err.message }, 'provider key watch: not subscribed yet'),
  );
  return {
    ready,
    async close() {
      closed = true;
      if (subscriber.status !== 'ready') return void subscriber.disconnect();
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
