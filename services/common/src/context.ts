// The request id and the W3C trace context travel with each request (or queue job) through
// AsyncLocalStorage, so logs and outgoing RPC calls carry them without threading them through every
// function.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';
/** W3C trace context: `00-<trace id, 32 hex>-<parent span id, 16 hex>-<flags, 2 hex>`. */
export const TRACEPARENT_HEADER = 'traceparent';

/** Where a unit of work sits in its trace: the trace, and the span that does the work. */
export interface TraceContext {
  traceId: string;
  spanId: string;
  /** Trace flags, two hex digits ('01': sampled). */
  flags: string;
}

interface RequestContext {
  requestId: string;
  trace?: TraceContext;
  /**
   * The bounded name of what the request turned out to be (an RPC procedure), set by whoever learns
   * it, for the request's duration metric.
   */
  route?: string;
  /**
   * The signed-in member's role in the workspace the request acts in (roles.ts), set by the gateway
   * once it has authenticated the request; its calls to the services carry it (service-auth.ts).
   */
  role?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export function currentTrace(): TraceContext | undefined {
  return storage.getStore()?.trace;
}

/** Names the current request for its duration metric (a procedure or route template, never a raw path). */
export function setCurrentRoute(route: string): void {
  const store = storage.getStore();
  if (store) store.route = route;
}

/** Records the member's role for the rest of the current request (the gateway, after authenticating it). */
export function setCurrentRole(role: string): void {
  const store = storage.getStore();
  if (store) store.role = role;
}

export function currentRole(): string | undefined {
  return storage.getStore()?.role;
}

/** The current request's route holder, to read its route once the request is over. */
export function currentRequest(): { readonly route?: string } | undefined {
  return storage.getStore();
}

export function runWithRequestId<T>(requestId: string | undefined, fn: () => T, trace?: TraceContext): T {
  return storage.run({ requestId: sanitizeRequestId(requestId) ?? randomUUID(), trace }, fn);
}

/** Accepts a caller's id only if it is short and printable, so it cannot pollute logs. */
export function sanitizeRequestId(id: string | undefined | null): string | undefined {
  if (!id || id.length > 100 || !/^[\w.:-]+$/.test(id)) return undefined;
  return id;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * A caller's traceparent header, or undefined when it is absent or malformed (then a new trace
 * starts). As the W3C specification asks: version ff and all-zero ids are invalid, and a future
 * version is read for its first four fields.
 */
export function parseTraceparent(header: string | undefined | null): TraceContext | undefined {
  if (!header || header.length > 256) return undefined;
  const m = TRACEPARENT.exec(header.trim().toLowerCase());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, flags };
}

export function formatTraceparent(trace: TraceContext): string {
  return `00-${trace.traceId}-${trace.spanId}-${trace.flags}`;
}

/** Random span (8 bytes) and trace (16 bytes) ids, in hex, from a pool refilled every few hundred ids. */
const pool = Buffer.alloc(4096);
let used = pool.length;
function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomBytes(pool.length).copy(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}

export const newSpanId = (): string => randomHex(8);
export const newTraceId = (): string => randomHex(16);
