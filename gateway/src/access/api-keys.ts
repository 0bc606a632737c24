// The developer API's key check (docs/adr/0033-developer-api.md): `Authorization: Bearer
// parley_sk_...` answered by auth's AuthenticateApiKey, kept in a small in-process cache (ADR 14) for
// a few seconds (API_KEY_CACHE_MS), and never past the answer's expires_at (a key's expiry, or the
// end of a roll's overlap). A key revoked or rolled is forgotten at once, on every replica, when auth
// announces it (`forget`, ADR 35); the cache's seconds bound only a lost announcement. Entries are
// keyed by the secret's SHA-256, never the secret itself.
//
// A secret auth refused is kept too, apart, for API_KEY_REFUSAL_CACHE_MS (30 s): a client retrying a
// wrong key costs auth no lookup. Keeping a refusal is safe because it never turns into a working
// key: secrets are random (one refused cannot be created later), and a key refused as revoked,
// expired or rolled past its overlap stays refused. Only auth's refusal of the secret is kept, never
// a failure to ask (auth unavailable, the gateway's own credentials refused). A secret in neither
// cache is asked of auth past the caller's guard (rate-limit.ts, keyCheckLimiter), which counts the
// refusals per client address and stops a flood of wrong keys from one address before auth.
import { createHash } from 'node:crypto';
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { cache } from '@parley/common/cache.ts';
import { isApiScope, type ApiScope } from '@parley/common/api-scopes.ts';
import { Code, ConnectError, unauthenticated } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../http/clients.ts';

export const NO_KEY_MESSAGE = 'An API key is required: send it as "Authorization: Bearer parley_sk_..."';

/** A working key, as auth answered it. */
export interface ApiKeyCaller {
  workspaceId: string;
  apiKeyId: string;
  scopes: ReadonlySet<ApiScope>;
  /** Empty: every chatbot of the workspace. */
  chatbotIds: ReadonlySet<string>;
  /** When the secret stops working by itself (ms since the epoch); Infinity: not before a roll or revocation. */
  expiresAtMs: number;
}

/** What surrounds a question to auth that the caches could not answer (rate-limit.ts, keyCheckLimiter). */
export interface KeyCheckGuard {
  /** Before auth is asked; throws to refuse without asking. */
  admit(): Promise<void>;
  /** Auth refused the secret (once per question asked; never for a working key or a failure to ask). */
  refused(): Promise<void>;
}

export interface KeyChecker {
  /** The working key of a secret; `guard` surrounds the question to auth when neither cache answers. */
  authenticate(secret: string | undefined, guard?: KeyCheckGuard): Promise<ApiKeyCaller>;
  /** Asks auth again, past the cache (a held stream's re-check), and keeps the fresh answer. */
  recheck(secret: string): Promise<ApiKeyCaller>;
  /** Drops what is cached for these keys (revoked or rolled): their next request asks auth. */
  forget(apiKeyIds: Iterable<string>): void;
  /** Drops everything cached (announcements may have been missed). */
  forgetAll(): void;
}

/** The shape of a secret (api-key-secret.ts in auth): anything else is refused without a call. */
const SECRET = /^parley_sk_[A-Za-z0-9]{43}$/;

export interface KeyCheckerOptions {
  cacheMs: number;
  /** How long a secret auth refused is refused without asking again (0: never kept). */
  refusalCacheMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export function keyChecker(clients: Clients, opts: KeyCheckerOptions): KeyChecker {
  const now = opts.now ?? Date.now;
  const maxEntries = opts.maxEntries ?? 10_000;
  const held = cache<string, ApiKeyCaller>({ maxEntries, maxAgeMs: opts.cacheMs, now });
  /** The hashes of secrets auth refused (bounded like the working ones: the least recently tried leave first). */
  const refused = cache<string, true>({ maxEntries, maxAgeMs: opts.refusalCacheMs ?? 0, now });
  /** The hashes cached for each key id (a rolled key has two secrets), to forget a key by its id. */
  const byKey = new Map<string, Set<string>>();
  /** Counts forgets: an answer asked for before one is used once but not kept (it may predate the revocation). */
  let generation = 0;
  /** Asks auth (concurrent checks of one secret share the question); a refusal is kept, and told to the guard once per question. */
  const loadKept = (id: string, secret: string, guard?: KeyCheckGuard) => {
    const asked = generation;
    const ask = async () => {
      try {
        return await load(secret);
      } catch (err) {
        if (isRefusal(err)) {
          refused.set(id, null, true);
          await guard?.refused();
        }
        throw err;
      }
    };
    return held.getOrLoad(id, null, ask, { keep: (k) => k.expiresAtMs > now() && asked === generation });
  };
  const load = async (secret: string): Promise<ApiKeyCaller> => {
    const res = await clients.apiKeys.authenticateApiKey({ secret });
    const id = hashOf(secret);
    const apiKeyId = res.apiKeyId.toLowerCase();
    byKey.set(apiKeyId, (byKey.get(apiKeyId) ?? new Set()).add(id));
    // Bounded like the cache: the oldest key's entries leave both, so every cached entry stays findable by its key.
    if (byKey.size > maxEntries) drop(byKey.keys().next().value!);
    return {
      workspaceId: res.workspaceId,
      apiKeyId: res.apiKeyId,
      scopes: new Set(res.scopes.filter(isApiScope)),
      chatbotIds: new Set(res.chatbotIds),
      expiresAtMs: res.expiresAt ? timestampMs(res.expiresAt) : Infinity,
    };
  };
  function drop(apiKeyId: string): void {
    for (const id of byKey.get(apiKeyId) ?? []) held.delete(id);
    byKey.delete(apiKeyId);
  }
  function forget(apiKeyIds: Iterable<string>): void {
    generation += 1;
    for (const apiKeyId of apiKeyIds) drop(apiKeyId.toLowerCase());
  }
  return {
    async authenticate(secret, guard) {
      if (!secret) throw unauthenticated(NO_KEY_MESSAGE);
      if (!SECRET.test(secret)) throw unauthenticated(INVALID_KEY_MESSAGE);
      const id = hashOf(secret);
      const hit = held.get(id, null);
      // Past its expiry an entry is never used: auth is asked again (and refuses).
      if (hit && hit.expiresAtMs > now()) return hit;
      if (hit) held.delete(id);
      if (refused.get(id, null)) throw unauthenticated(INVALID_KEY_MESSAGE);
      await guard?.admit();
      const key = await loadKept(id, secret, guard);
      if (key.expiresAtMs <= now()) throw unauthenticated(INVALID_KEY_MESSAGE);
      return key;
    },
    async recheck(secret) {
      const id = hashOf(secret);
      held.delete(id);
      const key = await loadKept(id, secret);
      if (key.expiresAtMs <= now()) throw unauthenticated(INVALID_KEY_MESSAGE);
      return key;
    },
    forget,
    forgetAll: () => forget([...byKey.keys()]),
  };
}

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/**
 * Auth's refusal of the secret itself, by its one message: a call auth refused for the gateway's own
 * credentials (a service secret being rolled, a skewed clock) is Unauthenticated too, and says
 * nothing of the secret, so it is neither kept nor counted.
 */
const isRefusal = (err: unknown) =>
  err instanceof ConnectError && err.code === Code.Unauthenticated && err.rawMessage === INVALID_KEY_MESSAGE;

/** Auth's one message for every secret that does not work; the gateway's own for a malformed one. */
export const INVALID_KEY_MESSAGE = 'Invalid API key';

/**
 * The WWW-Authenticate header of a 401 (RFC 6750): `Bearer` when no key was sent, and the
 * invalid_token error when the key sent does not work.
 */
export const bearerChallenge = (secret: string | undefined): string => (secret ? 'Bearer error="invalid_token"' : 'Bearer');
