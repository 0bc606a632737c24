// A fetch through the one outbound guard (guard.ts), for SDKs that speak HTTP through a fetch of
// their own (the MCP client): the same rules as outboundRequest (request.ts) — the scheme checked,
// the connection pinned to the checked address, every redirect checked again (at most MAX_REDIRECTS),
// and the body read up to a size cap, a longer one ending in an error. The caller's signal bounds
// time, the body's reading included. Failures are OutboundErrors naming their reason; `lastFailure` keeps the latest, since an SDK
// may wrap what its fetch threw in its own words.
import type { Dispatcher } from 'undici';
import { undici } from './undici.ts';
import { guardedAgent, type OutboundPolicy } from './guard.ts';
import { asOutboundError, MAX_REDIRECTS, OutboundError, outboundUrl } from './request.ts';

export interface GuardedFetch {
  fetch: typeof fetch;
  /** The latest failure of this fetch, or null. */
  lastFailure(): OutboundError | null;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A body stream that errors once more than maxBytes went through it, and that ends in the guard's
 * timeout when the caller's signal stops a body still arriving (one that never ends, a slow loris),
 * so the failure is named as every other is, not as the runtime's abort.
 */
function bounded(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  signal: AbortSignal | null | undefined,
  fail: (err: OutboundError) => OutboundError,
) {
  const reader = body.getReader();
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        size += value.byteLength;
        if (size > maxBytes) {
          controller.error(fail(new OutboundError('too-large', `The answer is larger than ${maxBytes} bytes`)));
          await reader.cancel().catch(() => undefined);
          return;
        }
        controller.enqueue(value);
      } catch (err) {
        if (signal?.aborted) controller.error(fail(new OutboundError('timeout', 'No complete answer in time')));
        else {
          const outbound = asOutboundError(err);
          controller.error(outbound instanceof OutboundError ? fail(outbound) : err);
        }
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

export function guardedFetch(
  policy: OutboundPolicy,
  limits: { maxBytes: number },
  dispatcher: Dispatcher = guardedAgent(policy),
): GuardedFetch {
  let last: OutboundError | null = null;
  const fail = (err: OutboundError) => (last = err);
  const run = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    let url = outboundUrl(input instanceof Request ? input.url : String(input), policy);
    let { method = 'GET', body } = init;
    for (let redirects = 0; ; redirects++) {
      const res = await undici().fetch(url, {
        method,
        headers: init.headers as Record<string, string>,
        body: body as string | undefined,
        signal: init.signal ?? undefined,
        redirect: 'manual',
        dispatcher,
      });
      const location = res.headers.get('location');
      if (REDIRECTS.has(res.status) && location) {
        await res.body?.cancel();
        if (redirects === MAX_REDIRECTS) throw new OutboundError('redirects', `More than ${MAX_REDIRECTS} redirects`);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new OutboundError('url', 'A redirect pointed to an invalid address');
        }
        url = outboundUrl(next.href, policy);
        if (res.status <= 303 && method !== 'GET') {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (declared > limits.maxBytes) {
        await res.body?.cancel();
        throw new OutboundError('too-large', `The answer is larger than ${limits.maxBytes} bytes`);
      }
      // A 204, 205 or 304 has no body a Response may carry.
      const stream =
        res.body && ![204, 205, 304].includes(res.status)
          ? bounded(res.body as ReadableStream<Uint8Array>, limits.maxBytes, init.signal, fail)
          : null;
      return new Response(stream, { status: res.status, statusText: res.statusText, headers: res.headers as unknown as Headers });
    }
  };
  return {
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      try {
        return await run(input, init);
      } catch (err) {
        if (init?.signal?.aborted) throw fail(new OutboundError('timeout', 'No complete answer in time'));
        const outbound = asOutboundError(err);
        if (outbound instanceof OutboundError) throw fail(outbound);
        throw err;
      }
    }) as typeof fetch,
    lastFailure: () => last,
  };
}
