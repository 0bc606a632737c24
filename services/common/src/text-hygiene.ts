// Input hygiene every service gets from the kit: PostgreSQL refuses U+0000 in text, and a NUL
// batched with other users' statements fails theirs too, so no request carrying one reaches a use
// case. The gateway refuses all control characters with its own message before this; this is the
// floor for any caller.
import type { Interceptor } from '@connectrpc/connect';
import { invalid } from './rpc-errors.ts';

export const NUL_REFUSED = 'Text must not contain NUL characters.';

/** Throws InvalidArgument when any string in the decoded message (nested messages, lists, maps) holds a NUL. */
export function assertNoNul(value: unknown): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw invalid(NUL_REFUSED);
    return;
  }
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return;
  for (const item of Array.isArray(value) ? value : Object.values(value)) assertNoNul(item);
}

/** The same check for the generic Connect handler (JSON, compressed and streaming requests). */
export const noNulInterceptor: Interceptor = (next) => async (req) => {
  if (!req.stream) assertNoNul(req.message);
  return next(req);
};
