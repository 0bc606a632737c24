/**
 * A map bounded in entries and in the total size of its values, in process: the least recently
 * used entries go first, and a value larger than the whole size bound is not kept (storing it
 * still removes what its key held).
 */
export interface Lru<K, V> {
  /** The value, now the most recently used. */
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
  /** The total size of the values held. */
  readonly totalSize: number;
}

export function lru<K, V>(opts: { maxEntries?: number; maxSize?: number; sizeOf?: (value: V) => number }): Lru<K, V> {
  const maxEntries = opts.maxEntries ?? Infinity;
  const maxSize = opts.maxSize ?? Infinity;
  const sizeOf = opts.sizeOf ?? (() => 0);
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const held = new Map<K, { value: V; size: number }>();
  let totalSize = 0;

  const remove = (key: K) => {
    const entry = held.get(key);
    if (!entry) return;
    held.delete(key);
    totalSize -= entry.size;
  };

  return {
    get(key) {
      const entry = held.get(key);
      if (!entry) return undefined;
      held.delete(key);
      held.set(key, entry);
      return entry.value;
    },
    set(key, value) {
      remove(key);
      const size = sizeOf(value);
      if (size > maxSize) return;
      while (held.size > 0 && (held.size >= maxEntries || totalSize + size > maxSize)) remove(held.keys().next().value!);
      held.set(key, { value, size });
      totalSize += size;
    },
    delete: remove,
    get totalSize() {
      return totalSize;
    },
  };
}
