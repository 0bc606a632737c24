// Calls spread over a service's replicas, per request (ADR 27). A service's URL setting names one
// replica, several (a comma-separated list), or one host name whose addresses are looked up again
// every few seconds (a Kubernetes headless Service, compose's `--scale`): each address is an
// endpoint with its own keep-alive pool, and each call, unary or streaming, goes to the endpoint
// with the fewest calls in flight (ties in turn). An endpoint that cannot be connected to sits out
// with a growing backoff, and is back as soon as a connection to it is set up. A call that provably
// never reached a replica is sent once more, to another endpoint when there is one; nothing else is
// retried, so no call is ever answered or charged twice.
import { lookup } from 'node:dns/promises';
import { Code, ConnectError } from '@connectrpc/connect';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { Agent, type ClientRequestArgs } from 'node:http';
import type { Duplex } from 'node:stream';

/** Host names that stay one endpoint, connected to as today (the system resolves them per connection). */
const FIXED_HOSTS = new Set(['localhost']);

/** A connection not set up within this long counts as refused (an address that drops packets). */
export const CONNECT_TIMEOUT_MS = 3000;
const BACKOFF_FIRST_MS = 500;
/** At most this long out: a replica listed before it starts takes calls within 2 s of its start. */
const BACKOFF_MAX_MS = 2_000;

/**
 * Splits and checks a service URL setting: one or more http(s) base URLs, comma-separated, without
 * path, query or credentials. Throws an Error saying what is wrong (config.ts names the variable).
 */
export function parseServiceTargets(raw: string): string[] {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.some((part) => part === '')) throw new Error(`must be a URL or a comma-separated list of URLs, got "${raw}"`);
  const urls = parts.map((part) => {
    let parsed: URL;
    try {
      parsed = new URL(part);
    } catch {
      throw new Error(`must be a URL or a comma-separated list of URLs, got "${part}"`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`must be an http or https URL, got "${part}"`);
    if (parsed.username || parsed.password || parsed.search || parsed.hash || parsed.pathname.replace(/\/+$/, '') !== '')
      throw new Error(`must be a base URL (scheme, host and port only), got "${part}"`);
    return parsed.origin;
  });
  if (new Set(urls).size !== urls.length) throw new Error(`names the same address twice: "${raw}"`);
  return urls;
}

/** One replica's address: its own keep-alive pool and what the balancer knows of it. */
export interface Endpoint {
  /** The base URL calls are sent to (for a looked-up name: the name's URL; `agent` connects to `address`). */
  readonly baseUrl: string;
  /** The address connected to, when the name was looked up by the pool. */
  readonly address: string | undefined;
  /**
   * The unary calls' keep-alive pool, of UNARY_SOCKETS_PER_ENDPOINT connections at most: a call past
   * them waits, in order, for one of them to be free rather than open a new one (ADR 71).
   */
  readonly agent: Agent;
  /** The streams' keep-alive pool (the library's transport), without a cap: a stream holds its connection for its whole length. */
  readonly streamAgent: Agent;
  /** Calls sent and not yet answered (streams: until their last message). */
  inFlight: number;
  /** Connection failures in a row: how long the current backoff is. */
  failures: number;
  /** Not chosen before this time (ms), unless every endpoint is out. */
  outUntil: number;
  /** When it last failed to connect, or was last tried since (ms): with every endpoint out, the longest ago is tried. */
  failedAt: number;
  /** No longer among the name's addresses: its pool closes once its last call ends. */
  retired: boolean;
  /** When it was last chosen (the pool's count of choices): among equally busy endpoints, the longest ago wins. */
  lastChosen: number;
}

/** Why a call provably never reached a replica, or undefined when it may have. */
export type NeverReached = 'unreachable' | 'closed-before-write';

export interface EndpointPoolOptions {
  /** How often a host name's addresses are looked up again (ms). */
  resolveIntervalMs?: number;
  /** A host name's addresses (tests control the answers); the system resolver by default. */
  resolve?: (host: string) => Promise<string[]>;
  /** The clock (ms); tests move it by hand. */
  now?: () => number;
}

const systemResolve = async (host: string): Promise<string[]> =>
  (await lookup(host, { all: true, order: 'ipv4first' })).map((entry) => entry.address);

/** The endpoints of one service, as the caller knows them, and the choice of one per call. */
export class EndpointPool {
  /** The first base URL: what a call's `url` shows to interceptors. */
  readonly displayBase: string;
  private endpoints: Endpoint[] = [];
  private choices = 0;
  private readonly now: () => number;
  /** Set when the setting is one host name to look up: its URL and the lookup. */
  private readonly named: { url: URL; host: string; resolve: (host: string) => Promise<string[]>; intervalMs: number } | undefined;
  private nextResolveAt = 0;
  private resolving: Promise<void> | undefined;
  private lastResolveError: unknown;

  constructor(setting: string, opts: EndpointPoolOptions = {}) {
    const urls = parseServiceTargets(setting);
    this.displayBase = urls[0];
    this.now = opts.now ?? Date.now;
    const single = urls.length === 1 ? new URL(urls[0]) : undefined;
    const host = single?.hostname.replace(/^\[|\]$/g, '');
    if (single && host && isIP(host) === 0 && !FIXED_HOSTS.has(host.toLowerCase())) {
      this.named = { url: single, host, resolve: opts.resolve ?? systemResolve, intervalMs: opts.resolveIntervalMs ?? 5000 };
    } else {
      this.endpoints = urls.map((url) => newEndpoint(url, undefined));
    }
  }

  /** The endpoints now in use (tests, benchmarks). */
  list(): readonly Endpoint[] {
    return this.endpoints;
  }

  /**
   * The endpoint for the next call: the fewest calls in flight among those not out, ties to the one
   * chosen longest ago (in turn, whichever are out); with every one out, the one that failed longest
   * ago. `avoid` (the endpoint a call never reached) is taken only when it is the only one.
   * Undefined while a host name has no known address yet.
   */
  pick(avoid?: Endpoint): Endpoint | undefined {
    if (this.named) this.refreshIfDue();
    const list = this.endpoints;
    const n = list.length;
    if (n === 1) return this.taken(list[0]);
    if (n === 0) return undefined;
    // The clock is read only when an endpoint has failed (a healthy one's outUntil is 0).
    let now: number | undefined;
    let best: Endpoint | undefined;
    let leastRecentlyFailed: Endpoint | undefined;
    for (let i = 0; i < n; i++) {
      const ep = list[i];
      if (ep === avoid) continue;
      if (ep.outUntil !== 0 && ep.outUntil > (now ??= this.now())) {
        if (!leastRecentlyFailed || ep.failedAt < leastRecentlyFailed.failedAt) leastRecentlyFailed = ep;
      } else if (!best || ep.inFlight < best.inFlight || (ep.inFlight === best.inFlight && ep.lastChosen < best.lastChosen)) best = ep;
    }
    const chosen = this.taken(best ?? leastRecentlyFailed ?? avoid);
    if (chosen) chosen.lastChosen = ++this.choices;
    return chosen;
  }

  /** The next call's endpoint, waiting for a host name's first lookup when none is known yet. */
  async pickResolved(avoid?: Endpoint): Promise<Endpoint> {
    const ep = this.pick(avoid);
    if (ep) return ep;
    await this.refresh();
    const after = this.pick(avoid);
    if (after) return after;
    const why = this.lastResolveError instanceof Error ? `: ${this.lastResolveError.message}` : '';
    throw new ConnectError(`no address found for ${this.named?.host}${why}`, Code.Unavailable);
  }

  /** A call to `ep` is over; `unreachable` when it could not connect (any other outcome shows it accepts connections). */
  release(ep: Endpoint, unreachable: boolean): void {
    ep.inFlight--;
    if (unreachable) {
      ep.failures++;
      ep.failedAt = this.now();
      ep.outUntil = ep.failedAt + backoff(ep.failures);
    } else if (ep.failures > 0) {
      ep.failures = 0;
      ep.outUntil = 0;
    }
    if (ep.retired && ep.inFlight === 0) closeEndpoint(ep);
  }

  /** Looks the host name up now and updates the endpoints (the pool does this by itself every interval). */
  refresh(): Promise<void> {
    const named = this.named;
    if (!named) return Promise.resolve();
    this.nextResolveAt = this.now() + named.intervalMs;
    this.resolving ??= named
      .resolve(named.host)
      .then(
        (addresses) => {
          this.lastResolveError = undefined;
          // An empty answer keeps the endpoints known: better than failing every call on a DNS hiccup.
          if (addresses.length > 0) this.update(named.url.origin, [...new Set(addresses)]);
        },
        (err: unknown) => {
          this.lastResolveError = err;
        },
      )
      .finally(() => {
        this.resolving = undefined;
      });
    return this.resolving;
  }

  /** Closes every keep-alive connection (a process stopping, a test ending). */
  close(): void {
    for (const ep of this.endpoints) closeEndpoint(ep);
  }

  private refreshIfDue(): void {
    if (this.resolving === undefined && this.now() >= this.nextResolveAt) void this.refresh();
  }

  /**
   * An endpoint back from its backoff is tried by one call, and sits out again until that call tells;
   * with every endpoint out, they are tried in turn.
   */
  private taken(ep: Endpoint | undefined): Endpoint | undefined {
    if (ep && ep.failures > 0) {
      const now = this.now();
      ep.failedAt = now;
      if (ep.outUntil <= now) ep.outUntil = now + backoff(ep.failures);
    }
    return ep;
  }

  private update(baseUrl: string, addresses: string[]): void {
    const byAddress = new Map(this.endpoints.map((ep) => [ep.address, ep]));
    const next = addresses.map((address) => byAddress.get(address) ?? newEndpoint(baseUrl, address));
    const kept = new Set(next);
    for (const ep of this.endpoints) {
      if (kept.has(ep)) continue;
      ep.retired = true;
      if (ep.inFlight === 0) closeEndpoint(ep);
    }
    this.endpoints = next;
  }
}

/**
 * Connections of an endpoint's unary calls at most (ADR 71). A busy Node process accepts one new
 * connection per turn of its event loop (libuv's accept), so a burst of calls that each opened one
 * waited tens of seconds to be accepted while the calls on open connections went on; capped, the
 * calls past the cap wait in this process, in order, for a connection to be free. Far above the
 * calls a replica serves at once (its CPU is the limit long before), far below what it would
 * accept in one burst. Streams keep a pool of their own, without a cap (`streamAgent`).
 */
export const UNARY_SOCKETS_PER_ENDPOINT = 64;

/** How long an endpoint sits out once it answered `Connection: close`: a replica draining on SIGTERM (ADR 25). */
export const DRAINING_OUT_MS = 2_000;

/**
 * The endpoint's answer said `Connection: close`, as every answer of a replica draining on SIGTERM
 * does (ADR 25): it will soon stop listening. It sits out for DRAINING_OUT_MS (then it is tried
 * again: refused and backed off if it is gone), and its idle connections are closed here, by the
 * caller. Left to the replica to close, an idle connection could be taken by a call at that very
 * moment, which would then fail after its bytes were written, and could not be sent again.
 */
export function endpointDraining(ep: Endpoint, now = Date.now()): void {
  ep.outUntil = Math.max(ep.outUntil, now + DRAINING_OUT_MS);
  for (const agent of [ep.agent, ep.streamAgent])
    for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

/** Closes both of an endpoint's keep-alive pools. */
function closeEndpoint(ep: Endpoint): void {
  ep.agent.destroy();
  ep.streamAgent.destroy();
}

/** Whether a response's Connection header closes the connection (`headers.connection` of Node, or a Headers value). */
export const closesConnection = (value: string | string[] | null | undefined): boolean =>
  typeof value === 'string' && value.toLowerCase() === 'close';

const backoff = (failures: number) => Math.min(BACKOFF_FIRST_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);

function newEndpoint(baseUrl: string, address: string | undefined): Endpoint {
  // A connection set up is the answer to "does it refuse connections?": the endpoint is back at
  // once, without waiting for the call that connected to end (a model's answer may take seconds).
  const connected = () => {
    if (ep.failures > 0) {
      ep.failures = 0;
      ep.outUntil = 0;
    }
  };
  const ep: Endpoint = {
    baseUrl,
    address,
    agent: new EndpointAgent(address, connected, UNARY_SOCKETS_PER_ENDPOINT),
    streamAgent: new EndpointAgent(address, connected),
    inFlight: 0,
    failures: 0,
    outUntil: 0,
    failedAt: 0,
    retired: false,
    lastChosen: 0,
  };
  return ep;
}

/**
 * One endpoint's keep-alive pool. As Node's global agent: with a socket timeout set, it closes an idle
 * connection a second before the server's announced keep-alive timeout (Keep-Alive: timeout=5), so a
 * call is seldom written on a connection the server is closing. A looked-up address is pinned (the
 * URL keeps the name, for Host and TLS), and a connection not set up in time fails as refused.
 */
class EndpointAgent extends Agent {
  private readonly onConnected: () => void;

  constructor(address: string | undefined, onConnected: () => void, maxSockets = Infinity) {
    super({ keepAlive: true, scheduling: 'lifo', timeout: 5000, maxSockets, ...(address ? { lookup: pinned(address) } : {}) });
    this.onConnected = onConnected;
  }

  override createConnection(options: ClientRequestArgs, callback?: (err: Error | null, socket: Duplex) => void): Duplex {
    const socket = super.createConnection(options, callback) as Socket;
    const timer = setTimeout(() => {
      socket.destroy(Object.assign(new Error(`connect timed out after ${CONNECT_TIMEOUT_MS} ms`), { code: 'ECONNTIMEOUT' }));
    }, CONNECT_TIMEOUT_MS);
    socket.once('connect', () => {
      clearTimeout(timer);
      this.onConnected();
    });
    socket.once('close', () => clearTimeout(timer));
    return socket;
  }
}

function pinned(address: string): LookupFunction {
  const family = isIP(address);
  return (_host, options, callback) => {
    const cb = callback as (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void;
    if ((options as { all?: boolean }).all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  };
}

/** Node error codes of a connection that was never set up. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNTIMEOUT', 'ENOTFOUND', 'EAI_AGAIN']);

export function isUnreachable(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 3; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && UNREACHABLE.has(e.code)) return true;
  }
  return false;
}

/**
 * Runs one call on the chosen endpoint and, when `classify` says it provably never reached a replica
 * (and `mayRetry`), once more on another endpoint (the same when it is the only one). `hold` keeps
 * the endpoint counted as busy past the promise (a stream, until its last message).
 */
export function balance<T>(
  pool: EndpointPool,
  run: (ep: Endpoint) => Promise<T>,
  classify: (err: unknown) => NeverReached | undefined,
  opts: { mayRetry: boolean; signal?: AbortSignal; hold?: (result: T, release: () => void) => T },
): Promise<T> {
  const attempt = (ep: Endpoint, retriesLeft: number): Promise<T> => {
    ep.inFlight++;
    let result: Promise<T>;
    try {
      result = run(ep);
    } catch (err) {
      result = Promise.reject(err);
    }
    return result.then(
      (value) => {
        if (!opts.hold) {
          pool.release(ep, false);
          return value;
        }
        let released = false;
        return opts.hold(value, () => {
          if (released) return;
          released = true;
          pool.release(ep, false);
        });
      },
      (err: unknown) => {
        const never = classify(err);
        pool.release(ep, never === 'unreachable');
        if (never && retriesLeft > 0 && !opts.signal?.aborted) return pool.pickResolved(ep).then((next) => attempt(next, retriesLeft - 1));
        throw err;
      },
    );
  };
  const ep = pool.pick();
  const retries = opts.mayRetry ? 1 : 0;
  return ep ? attempt(ep, retries) : pool.pickResolved().then((first) => attempt(first, retries));
}
