// Fetching an owner's web page without letting the owner reach our own network (server-side
// request forgery): the address a connection is made to is checked after DNS resolution, inside the
// connection itself, so a second resolution cannot answer differently (DNS rebinding: the one
// outbound guard, @parley/common/outbound/guard.ts, which webhook deliveries and actions use too), and
// every redirect goes through the same check. Each fetch has one deadline and a body size limit, so a
// slow or endless page cannot hold a worker.
import type { Dispatcher } from 'undici';
import { undici } from '@parley/common/outbound/undici.ts';
import { guardedAgent, type OutboundPolicy } from '@parley/common/outbound/guard.ts';
import { SourceError } from './source-error.ts';
import { INVALID_URL, normalizeUrl } from './web-source.ts';

export { INVALID_URL, normalizeUrl } from './web-source.ts';
export { createGuardedAgent, isPublicAddress } from '@parley/common/outbound/guard.ts';

/** Who we say we are, to sites and their robots.txt. */
export const USER_AGENT = 'ParleyBot/1.0 (+https://parley.example/bot)';
export const MAX_REDIRECTS = 5;

export const ADDRESS_NOT_ALLOWED = 'This address is not allowed';
export const TOO_SLOW = 'The page took too long to answer';
export const TOO_LARGE = 'Page too large';
export const TOO_MANY_REDIRECTS = 'Too many redirects';
export const SITE_NOT_FOUND = 'The page could not be fetched (site not found)';
export const CONNECTION_FAILED = 'The page could not be fetched (connection failed)';
export const BAD_RESPONSE = 'The page could not be fetched (invalid response)';
export const httpFailed = (status: number) => `The page could not be fetched (HTTP ${status})`;

export interface WebFetchOptions {
  /** KNOWLEDGE_URL_ALLOW_PRIVATE=1: private, loopback and link-local addresses may be fetched (tests, local use). */
  allowPrivate: boolean;
  /** The operator's allow-list of private ranges and hosts (OUTBOUND_ALLOW), when set. */
  policy?: OutboundPolicy;
  /** The whole fetch, redirects and body included. */
  timeoutMs: number;
  /** The largest body read (after decompression). */
  maxBytes: number;
  userAgent?: string;
}

export interface FetchedPage {
  /** The final address, after redirects. */
  url: string;
  status: number;
  /** The media type, lower case, without parameters ('' when the site sent none). */
  contentType: string;
  /** The charset parameter of the content type, when there was one. */
  charset?: string;
  body: Buffer;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET an http(s) address, following up to MAX_REDIRECTS redirects (each target checked again), and
 * read its body up to opts.maxBytes. Refusals and failures are SourceErrors in the owner's words.
 */
export async function safeFetch(
  rawUrl: string,
  opts: WebFetchOptions,
  dispatcher = guardedAgent(opts.policy ?? opts.allowPrivate),
): Promise<FetchedPage> {
  let url = new URL(normalizeUrl(rawUrl));
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), opts.timeoutMs);
  try {
    for (let redirects = 0; ; redirects++) {
      const res = await undici().request(url, {
        dispatcher,
        method: 'GET',
        signal: deadline.signal,
        headers: {
          'user-agent': opts.userAgent ?? USER_AGENT,
          accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
      });
      const location = header(res.headers, 'location');
      if (REDIRECTS.has(res.statusCode) && location) {
        await res.body.dump();
        if (redirects === MAX_REDIRECTS) throw new SourceError(TOO_MANY_REDIRECTS);
        url = redirectTarget(location, url);
        continue;
      }
      if (res.statusCode >= 400) {
        await res.body.dump();
        throw new SourceError(httpFailed(res.statusCode));
      }
      const [type = '', ...params] = (header(res.headers, 'content-type') ?? '').split(';');
      const charset = params.map((p) => p.trim().match(/^charset\s*=\s*"?([^";]+)"?$/i)?.[1]).find(Boolean);
      const body = await readAtMost(res.body, opts.maxBytes, Number(header(res.headers, 'content-length') ?? NaN));
      return { url: url.href, status: res.statusCode, contentType: type.trim().toLowerCase(), charset, body };
    }
  } catch (err) {
    throw deadline.signal.aborted ? new SourceError(TOO_SLOW) : asSourceError(err);
  } finally {
    clearTimeout(timer);
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function redirectTarget(location: string, from: URL): URL {
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    throw new SourceError(INVALID_URL);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new SourceError(ADDRESS_NOT_ALLOWED);
  target.hash = '';
  return target;
}

async function readAtMost(body: Dispatcher.ResponseData['body'], maxBytes: number, declaredLength: number): Promise<Buffer> {
  // A declared length is only a hint (the body may be compressed): it lets a large page fail at once.
  if (declaredLength > maxBytes && !Number.isNaN(declaredLength)) {
    body.destroy();
    throw new SourceError(TOO_LARGE);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw new SourceError(TOO_LARGE);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Network failures in the owner's words; an unexpected error stays what it is (a fault of ours). */
function asSourceError(err: unknown): unknown {
  if (err instanceof SourceError) return err;
  const codes = new Set<string>();
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code) codes.add(code);
    else if (e.name === 'HTTPParserError') codes.add('HPE_');
    if (e instanceof AggregateError) for (const inner of e.errors) codes.add((inner as NodeJS.ErrnoException).code ?? '');
  }
  if (codes.has('ERR_ADDRESS_REFUSED')) return new SourceError(ADDRESS_NOT_ALLOWED);
  if (codes.has('ENOTFOUND') || codes.has('EAI_AGAIN') || codes.has('EAI_NODATA')) return new SourceError(SITE_NOT_FOUND);
  if (['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT'].some((c) => codes.has(c)))
    return new SourceError(TOO_SLOW);
  // Not HTTP, a body shorter or longer than announced, compressed data that does not decompress.
  if ([...codes].some((c) => /^(HPE_\w*|UND_ERR_RES_CONTENT_LENGTH_MISMATCH|UND_ERR_INFO|Z_\w+)$/.test(c)))
    return new SourceError(BAD_RESPONSE);
  if (
    [...codes].some((c) =>
      /^(E[A-Z]+|UND_ERR_SOCKET|UND_ERR_CLOSED|ERR_TLS_.*|ERR_SSL_.*|UNABLE_TO_.*|CERT_.*|DEPTH_ZERO_.*|SELF_SIGNED_.*)$/.test(c),
    )
  )
    return new SourceError(CONNECTION_FAILED);
  return err;
}
