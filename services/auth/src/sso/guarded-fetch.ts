// Every request auth makes to an identity provider (OIDC discovery, keys, token endpoint) goes through
// the one outbound guard (services/common/src/outbound/guard.ts): an owner's issuer URL cannot
// reach internal addresses. Answers are bounded in size and time, and redirects are not followed.
import { guardedAgent } from '@parley/common/outbound/guard.ts';
import { undici } from '@parley/common/outbound/undici.ts';

const MAX_BODY_BYTES = 1024 * 1024;
const TIMEOUT_MS = 10_000;

export function guardedFetch(allowPrivate: boolean) {
  return async (url: string, options: { method: string; headers: Record<string, string>; body?: unknown }): Promise<Response> => {
    const res = await undici().fetch(url, {
      method: options.method,
      headers: options.headers,
      body: options.body as string | undefined,
      redirect: 'manual',
      dispatcher: guardedAgent(allowPrivate),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const length = Number(res.headers.get('content-length') ?? 0);
    if (length > MAX_BODY_BYTES) throw new Error('identity provider answer too large');
    const body = new Uint8Array(await res.arrayBuffer());
    if (body.byteLength > MAX_BODY_BYTES) throw new Error('identity provider answer too large');
    // openid-client checks for the platform's own Response.
    return new Response(res.status === 204 ? null : body, { status: res.status, headers: Object.fromEntries(res.headers) });
  };
}
