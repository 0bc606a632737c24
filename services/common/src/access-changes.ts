// Access taken away, announced to whoever holds a response open on it
// (docs/adr/0035-access-for-as-long-as-a-response-lives.md). Auth publishes on one Redis pub/sub
// channel, after the change commits, whose access just changed: users (removed, left, a new role,
// signed out, a new password, deleted), workspaces (deleted) and API keys (revoked, rolled). Every
// gateway listens on one subscriber connection and asks auth again for each stream the change may
// concern; the message names no secret and grants nothing, so a forged or lost one can only cause a
// needless re-check or a delay until the periodic one.
import { randomBytes } from 'node:crypto';
import type { Logger } from './logger.ts';
import { redisKeys } from './redis-keys.ts';
import { withRedisDeadline, type Redis } from './redis.ts';

/** Whose access changed: a held response is asked about again if it is one of theirs. */
export interface AccessChange {
  userIds: string[];
  workspaceIds: string[];
  apiKeyIds: string[];
}

/** Ids in a change, at most: a larger message is read as far as this and the rest ignored. */
const MAX_IDS = 1000;
const ID = /^[\w-]{1,64}$/;

/** A change with every list present and every id in lower case (ids are UUIDs: a request may spell one in capitals). */
export function accessChange(change: Partial<AccessChange>): AccessChange {
  const lower = (ids: string[] | undefined) => (ids ?? []).filter(Boolean).map((id) => id.toLowerCase());
  return { userIds: lower(change.userIds), workspaceIds: lower(change.workspaceIds), apiKeyIds: lower(change.apiKeyIds) };
}

/** A published message, read defensively: anything but lists of ids reads as no change. */
export function parseAccessChange(message: string): AccessChange {
  let raw: unknown;
  try {
    raw = JSON.parse(message);
  } catch {
    return accessChange({});
  }
  const ids = (value: unknown): string[] =>
    Array.isArray(value) ? value.slice(0, MAX_IDS).filter((v): v is string => typeof v === 'string' && ID.test(v)) : [];
  const r = (raw ?? {}) as Record<string, unknown>;
  return accessChange({ userIds: ids(r.userIds), workspaceIds: ids(r.workspaceIds), apiKeyIds: ids(r.apiKeyIds) });
}

export type AnnounceAccessChange = (change: Partial<AccessChange>) => Promise<void>;

/**
 * Publishes a change; never throws (the change is committed already: a holder that misses it finds
 * out at its periodic re-check, and a key's cached answer expires by itself).
 */
export function accessChangePublisher(redis: Redis, prefix: string, logger: Logger): AnnounceAccessChange {
  const channel = redisKeys(prefix).accessChannel();
  return async (change) => {
    const full = accessChange(change);
    if (!full.userIds.length && !full.workspaceIds.length && !full.apiKeyIds.length) return;
    try {
      await withRedisDeadline(redis.publish(channel, JSON.stringify(full)));
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'could not announce an access change; holders re-check periodically');
    }
  };
}

export interface AccessWatch {
  /** Resolves once Redis confirmed the subscription. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens to the changes on a connection of its own. `onChange` gets each change; `onGap` is called
 * when the connection came back after a loss (changes published meanwhile are gone, so the holder
 * re-checks everything it holds and forgets what it cached).
 */
export function watchAccessChanges(
  redis: Redis,
  prefix: string,
  handlers: { onChange(change: AccessChange): void; onGap(): void },
  logger: Logger,
): AccessWatch {
  const channel = redisKeys(prefix).accessChannel();
  const subscriber = redis.duplicate({ connectionName: `access-watch-${randomBytes(4).toString('hex')}` });
  let lost = false;
  let closed = false;
  subscriber.on('error', (err) => logger.warn({ err: err.message }, 'access watch: redis subscriber error'));
  subscriber.on('close', () => {
    if (!closed) lost = true;
  });
  // ioredis subscribes again by itself on reconnecting; what was published in between is lost.
  subscriber.on('ready', () => {
    if (!lost) return;
    lost = false;
    logger.warn('access watch: the subscriber connection came back; re-checking every held stream');
    handlers.onGap();
  });
  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return;
    try {
      handlers.onChange(parseAccessChange(message));
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'access watch: a handler failed');
    }
  });
  // Not subscribed yet (Redis down at start): the periodic re-checks hold meanwhile, and ioredis keeps trying.
  const ready = withRedisDeadline(subscriber.subscribe(channel), 5000).then(
    () => undefined,
    (err: Error) => logger.warn({ err: err.message }, 'access watch: not subscribed yet'),
  );
  return {
    ready,
    async close() {
      closed = true;
      // QUIT waits for a connection that may never come (Redis down): without one, just drop it.
      if (subscriber.status !== 'ready') return void subscriber.disconnect();
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
