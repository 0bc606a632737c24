// The request id travels with each request through AsyncLocalStorage, so logs and outgoing RPC
// calls carry it without threading it through every function.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export function runWithRequestId<T>(requestId: string | undefined, fn: () => T): T {
  return storage.run({ requestId: sanitizeRequestId(requestId) ?? randomUUID() }, fn);
}

/** Accepts a caller's id only if it is short and printable, so it cannot pollute logs. */
export function sanitizeRequestId(id: string | undefined | null): string | undefined {
  if (!id || id.length > 100 || !/^[\w.:-]+$/.test(id)) return undefined;
  return id;
}
