// The one in-process cache of the services (docs/adr/0014-caches.md). Every cache needs the same
// three bounds, so they live here once: size (entries and a total weight, least recently used out
// first), time (an entry is dropped maxAgeMs after it was stored, whatever happens meanwhile) and
// validity (an entry is stored under a token, e.g. a chatbot's public revision, and a read with any
// other token is a miss). getOrLoad reads through and coalesces concurrent loads of one key and token.

export interface CacheOptions<V> {
  /** Entries held at most (default: unbounded). */
  maxEntries?: number;
  /** Total `sizeOf` of the values held at most; a value weighing more than this alone is not kept. */
  maxSize?: number;
  sizeOf?: (value: V) => number;
  /** An entry is dropped this long after it was stored (default: never). */
  maxAgeMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

export interface Cache<K, V, T = null> {
  /** The value stored under `key` with exactly this `token` (Object.is) and still young; now the most recently used. */
  get(key: K, token: T): V | undefined;
  /** Stores `value` under `key` and `token`, replacing whatever `key` held. */
  set(key: K, token: T, value: V): void;
  delete(key: K): void;
  /**
   * The held value, or the result of `load`, stored unless `keep` says otherwise. Concurrent calls for
   * one key and token share one load (and its failure); a failed load stores nothing.
   */
  getOrLoad(key: K, token: T, load: () => Promise<V>, opts?: { keep?: (value: V) => boolean }): Promise<V>;
  readonly size: number;
  /** The total `sizeOf` of the values held. */
  readonly totalSize: number;
}

interface Entry<V, T> {
  value: V;
  token: T;
  weight: number;
  storedAt: number;
}

export function cache<K, V, T = null>(opts: CacheOptions<V> = {}): Cache<K, V, T> {
  const maxEntries = opts.maxEntries ?? Infinity;
  const maxSize = opts.maxSize ?? Infinity;
  const maxAgeMs = opts.maxAgeMs ?? Infinity;
  const sizeOf = opts.sizeOf ?? (() => 0);
  const now = opts.now ?? Date.now;
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const held = new Map<K, Entry<V, T>>();
  const loading = new Map<K, { token: T; promise: Promise<V> }>();
  let totalSize = 0;

  const remove = (key: K) => {
    const entry = held.get(key);
    if (!entry) return;
    held.delete(key);
    totalSize -= entry.weight;
  };

  const self: Cache<K, V, T> = {
    get(key, token) {
      const entry = held.get(key);
      if (!entry) return undefined;
      if (now() - entry.storedAt >= maxAgeMs) {
        remove(key);
        return undefined;
      }
      if (!Object.is(entry.token, token)) return undefined;
      held.delete(key);
      held.set(key, entry);
      return entry.value;
    },
    set(key, token, value) {
      remove(key);
      const weight = sizeOf(value);
      if (weight > maxSize || maxEntries < 1) return;
      while (held.size > 0 && (held.size >= maxEntries || totalSize + weight > maxSize)) remove(held.keys().next().value as K);
      held.set(key, { value, token, weight, storedAt: now() });
      totalSize += weight;
    },
    delete: remove,
    getOrLoad(key, token, load, loadOpts = {}) {
      const hit = self.get(key, token);
      if (hit !== undefined) return Promise.resolve(hit);
      const inFlight = loading.get(key);
      if (inFlight && Object.is(inFlight.token, token)) return inFlight.promise;
      const promise = load().then(
        (value) => {
          // A load overtaken by one for another token is not stored: the newer token's load decides.
          if (loading.get(key)?.promise === promise) {
            loading.delete(key);
            if (loadOpts.keep?.(value) ?? true) self.set(key, token, value);
          }
          return value;
        },
        (err: unknown) => {
          if (loading.get(key)?.promise === promise) loading.delete(key);
          throw err;
        },
      );
      loading.set(key, { token, promise });
      return promise;
    },
    get size() {
      return held.size;
    },
    get totalSize() {
      return totalSize;
    },
  };
  return self;
}
