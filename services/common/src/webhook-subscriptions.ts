// Which owners have a webhook endpoint subscribed to which event types (docs/adr/0032-webhooks.md),
// so that a publisher (the chat service's analytics worker, billing, the chatbot service) publishes
// an event only when someone will receive it, without a query per message. The chatbot service
// keeps a Redis hash (owner id → comma-separated types of its enabled endpoints) and a random
// revision it sets on every change; a reader asks for the revision (one GET) and reads the hash again
// only when it changed (one HGETALL), keeping it in an in-process cache (ADR 14) under that revision.
import { randomUUID } from 'node:crypto';
import { cache } from './cache.ts';
import type { Redis } from './redis.ts';
import { redisKeys } from './redis-keys.ts';

export interface WebhookSubscriptions {
  /** Whether an owner is subscribed to a type, read once for a whole batch of events. */
  subscribed(): Promise<(ownerId: string, type: string) => boolean>;
}

/** A cached hash is read again at the latest this long after it was stored, revision or not. */
const MAX_AGE_MS = 60_000;

export function webhookSubscriptions(redis: Redis, prefix: string): WebhookSubscriptions {
  const keys = redisKeys(prefix);
  const held = cache<'all', Map<string, Set<string>>, string>({ maxEntries: 1, maxAgeMs: MAX_AGE_MS });
  return {
    async subscribed() {
      const revision = (await redis.get(keys.webhookSubscriptionsRevision())) ?? '';
      // No revision: no endpoint was ever created in this deployment.
      const all =
        revision === ''
          ? new Map<string, Set<string>>()
          : await held.getOrLoad('all', revision, async () => {
              const hash = await redis.hgetall(keys.webhookSubscriptions());
              return new Map(Object.entries(hash).map(([owner, types]) => [owner, new Set(types.split(',').filter(Boolean))]));
            });
      return (ownerId, type) => all.get(ownerId)?.has(type) ?? false;
    },
  };
}

/** Sets (or, with no types, removes) an owner's subscribed types and moves the revision (chatbot service). */
export async function setWebhookSubscriptions(redis: Redis, prefix: string, ownerId: string, types: readonly string[]): Promise<void> {
  const keys = redisKeys(prefix);
  const multi = redis.multi();
  if (types.length > 0) multi.hset(keys.webhookSubscriptions(), ownerId, types.join(','));
  else multi.hdel(keys.webhookSubscriptions(), ownerId);
  multi.set(keys.webhookSubscriptionsRevision(), randomUUID());
  await multi.exec();
}

/** Whether the subscriptions hash has ever been written (its revision exists): false after Redis lost its data. */
export async function webhookSubscriptionsKept(redis: Redis, prefix: string): Promise<boolean> {
  return (await redis.exists(redisKeys(prefix).webhookSubscriptionsRevision())) === 1;
}
