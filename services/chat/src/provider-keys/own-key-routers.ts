// Each workspace's model router when it has own provider keys, kept in process so that a message
// costs no database round trip for them (docs/adr/0043-own-provider-keys.md): loaded at a
// workspace's first message (its keys decrypted, one SDK client per own key), kept for at most
// OWN_KEY_CACHE_MAX_AGE_MS among OWN_KEY_CACHE_ENTRIES workspaces (least recently used out first),
// and forgotten at once on every replica when the workspace sets or removes a key
// (provider-key-changes.ts). A workspace without own keys is cached as such (null).
import { cache } from '@parley/common/cache.ts';
import type { Provider } from '@parley/common/models/catalogue.ts';
import type { ModelRouter } from '../models/model-router.ts';

/** Workspaces held at most: with their SDK clients, a few kilobytes each. */
export const OWN_KEY_ROUTERS_MAX = 10_000;
/** A workspace is loaded again this long after it was, should a change announcement have been lost. */
export const OWN_KEY_ROUTERS_MAX_AGE_MS = 10 * 60_000;

export interface OwnKeyRouters {
  /** The workspace's router when an own key applies to it; null: the operator's. */
  of(ownerId: string): Promise<ModelRouter | null>;
  /** Forgets one workspace (its keys changed). */
  forget(ownerId: string): void;
  /** Forgets every workspace (changes may have been missed). */
  forgetAll(): void;
  readonly size: number;
}

export interface OwnKeyRoutersOptions {
  load(ownerId: string): Promise<Partial<Record<Provider, string>>>;
  /** The router of these keys, or null when none of them applies (providers.ts withOwnKeys). */
  routerOf(keys: Partial<Record<Provider, string>>): ModelRouter | null;
  maxEntries?: number;
  maxAgeMs?: number;
}

export function ownKeyRouters(opts: OwnKeyRoutersOptions): OwnKeyRouters {
  // Every change moves the generation on: a load begun before it is stored under the old one, so it
  // is never read, and the next message loads afresh.
  let generation = 0;
  const routers = cache<string, ModelRouter | null, number>({
    maxEntries: opts.maxEntries ?? OWN_KEY_ROUTERS_MAX,
    maxAgeMs: opts.maxAgeMs ?? OWN_KEY_ROUTERS_MAX_AGE_MS,
  });
  return {
    of: (ownerId) => routers.getOrLoad(ownerId, generation, async () => opts.routerOf(await opts.load(ownerId))),
    forget(ownerId) {
      generation++;
      routers.delete(ownerId);
    },
    forgetAll() {
      generation++;
    },
    get size() {
      return routers.size;
    },
  };
}
