// Live streams over Redis pub/sub (docs/adr/0034-humans-in-the-loop.md): what is stored is
// published after it commits, on `{prefix}:conversation:{id}` (what the visitor sees) and
// `{prefix}:inbox:{ownerId}` (the workspace's inbox rows). Each replica holds ONE subscriber
// connection and fans a channel out to its streams in-process: it subscribes on a channel's first
// listener and unsubscribes after its last. Pub/sub delivers at most once to whoever listens; a
// stream's catch-up read from the store (after it subscribed) is what makes delivery complete.
import { randomBytes } from 'node:crypto';
import type { Logger } from '@parley/common/logger.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';
import type { InboxItemView, LiveEvent } from './live-events.ts';

export interface LiveListener {
  /** Each message published on the channel, as published (JSON). */
  onMessage(message: string): void;
  /** The hub closed (the service stops): the stream ends. */
  onEnd(): void;
}

export interface LiveHub {
  /** Subscribes (the first listener of the channel waits for Redis to confirm); resolves to the call that stops listening. */
  listen(channel: string, listener: LiveListener): Promise<() => Promise<void>>;
  /** Channels with listeners on this replica, for tests and diagnostics. */
  channels(): string[];
  /** The subscriber connection's client name (CLIENT LIST), for tests and diagnostics. */
  readonly connectionName: string;
  close(): Promise<void>;
}

export function liveHub(redis: Redis, logger: Logger): LiveHub {
  const connectionName = `chat-live-${randomBytes(4).toString('hex')}`;
  let subscriber: Redis | null = null;
  const listeners = new Map<string, Set<LiveListener>>();
  /** The SUBSCRIBE of each channel, which a channel's later listeners wait for too. */
  const subscribed = new Map<string, Promise<unknown>>();
  let closed = false;

  /**
   * Every stream ends: the connection to Redis was lost, and what was published meanwhile with it.
   * The clients reconnect (the visitor's with its last message id) and catch up from the store; a
   * subscription silently restored would have skipped those messages.
   */
  const endAll = () => {
    const ended = [...listeners.values()].flatMap((set) => [...set]);
    listeners.clear();
    subscribed.clear();
    for (const l of ended) l.onEnd();
  };

  const connection = () => {
    if (!subscriber) {
      subscriber = redis.duplicate({ connectionName, autoResubscribe: false });
      subscriber.on('error', (err) => logger.warn({ err: err.message }, 'live hub: redis subscriber error'));
      subscriber.on('close', () => {
        if (closed || listeners.size === 0) return;
        logger.warn({ streams: listeners.size }, 'live hub: the subscriber connection closed, ending its streams');
        endAll();
      });
      subscriber.on('message', (channel: string, message: string) => {
        for (const l of listeners.get(channel) ?? []) {
          try {
            l.onMessage(message);
          } catch (err) {
            logger.warn({ err: (err as Error).message, channel }, 'live hub: a listener failed');
          }
        }
      });
    }
    return subscriber;
  };

  return {
    async listen(channel, listener) {
      if (closed) throw new Error('the live hub is closed');
      const sub = connection();
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        // Commands on one connection run in order: an UNSUBSCRIBE of an earlier last listener runs before this.
        subscribed.set(channel, sub.subscribe(channel));
      }
      set.add(listener);
      try {
        await withRedisDeadline(subscribed.get(channel)!);
      } catch (err) {
        set.delete(listener);
        throw err;
      }
      let stopped = false;
      return async () => {
        if (stopped) return;
        stopped = true;
        const current = listeners.get(channel);
        if (!current?.delete(listener) || current.size > 0) return;
        listeners.delete(channel);
        subscribed.delete(channel);
        if (!closed)
          await sub.unsubscribe(channel).catch((err: Error) => logger.warn({ err: err.message }, 'live hub: unsubscribe failed'));
      };
    },
    channels: () => [...listeners.keys()],
    connectionName,
    async close() {
      if (closed) return;
      closed = true;
      endAll();
      if (subscriber) await subscriber.quit().catch(() => {});
    },
  };
}

/** Publishes what was stored, on the channels the streams listen to. Never throws: the store has it, a reconnecting stream catches up. */
export interface LivePublisher {
  conversation(conversationId: string, event: LiveEvent): Promise<void>;
  inbox(ownerId: string, item: InboxItemView): Promise<void>;
}

export function livePublisher(redis: Redis, prefix: string, logger: Logger): LivePublisher {
  const keys = redisKeys(prefix);
  const publish = async (channel: string, payload: unknown) => {
    try {
      await withRedisDeadline(redis.publish(channel, JSON.stringify(payload)));
    } catch (err) {
      logger.warn({ err: (err as Error).message, channel }, 'live publish failed');
    }
  };
  return {
    conversation: (conversationId, event) => publish(keys.conversationChannel(conversationId), event),
    inbox: (ownerId, item) => publish(keys.inboxChannel(ownerId), item),
  };
}

/**
 * A listener that queues what arrives, read as an async iteration that ends when the hub closes
 * or `signal` aborts (the client went away).
 */
export function queuedListener(signal?: AbortSignal) {
  const pending: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const end = () => {
    ended = true;
    wake?.();
  };
  signal?.addEventListener('abort', end, { once: true });
  if (signal?.aborted) ended = true;
  const listener: LiveListener = {
    onMessage(message) {
      pending.push(message);
      wake?.();
    },
    onEnd: end,
  };
  return {
    listener,
    /** How many messages wait to be read. */
    get queued() {
      return pending.length;
    },
    async *messages(): AsyncGenerator<string> {
      for (;;) {
        const next = pending.shift();
        if (ended) return;
        if (next !== undefined) {
          yield next;
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
  };
}
