// One bounded outbound HTTP request through the guard (guard.ts): the URL's scheme is checked
// (https only outside development), every redirect target is checked again (at most
// MAX_REDIRECTS), one deadline covers connecting, redirects and the whole body (a response that never
// ends or a slow loris ends at the deadline), and the body is read up to a size cap (a 10 GB body
// ends at the cap). Every failure is an OutboundError whose message names the reason.
import type { Dispatcher } from 'undici';
import { undici } from './undici.ts';
import { guardRefusal, guardedAgent, type OutboundPolicy } from './guard.ts';

export const MAX_REDIRECTS = 3;

export type OutboundFailure =
  'url' | 'scheme' | 'address' | 'redirects' | 'too-large' | 'timeout' | 'not-found' | 'connection' | 'bad-response';

export class OutboundError extends Error {
  readonly failure: OutboundFailure;
  constructor(failure: OutboundFailure, message: string) {
    super(message);
    this.failure = failure;
  }
}

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /** The whole request: connect, redirects, body. */
  timeoutMs: number;
  /** The largest body read (after decompression). */
  maxBytes: number;
}

export interface OutboundResponse {
  /** The final address, after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Parses and checks a URL against the policy's schemes; no user name or password. */
export function outboundUrl(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('url', 'The address is not a valid URL');
  }
  const schemes = policy.httpsOnly && !policy.allowPrivate ? ['https:'] : ['https:', 'http:'];
  if (!schemes.includes(url.protocol))
    throw new OutboundError('scheme', `Only ${schemes.join(' and ').replace(/:/g, '')} addresses may be reached`);
  if (url.username || url.password) throw new OutboundError('url', 'The address may not carry a user name or password');
  url.hash = '';
  return url;
}

/** Sends one request through the guard and reads its answer, bounded in time and size. */
export async function outboundRequest(
  rawUrl: string,
  init: OutboundRequest,
  policy: OutboundPolicy,
  dispatcher: Dispatcher = guardedAgent(policy),
): Promise<OutboundResponse> {
  let url = outboundUrl(rawUrl, policy);
  let { method, body } = init;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), init.timeoutMs);
  try {
    for (let redirects = 0; ; redirects++) {
      const res = await undici().request(url, { dispatcher, method, signal: deadline.signal, headers: init.headers, body });
      const location = first(res.headers.location);
      if (REDIRECTS.has(res.statusCode) && location) {
        await res.body.dump();
        if (redirects === MAX_REDIRECTS) throw new OutboundError('redirects', `More than ${MAX_REDIRECTS} redirects`);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new OutboundError('url', 'A redirect pointed to an invalid address');
        }
        url = outboundUrl(next.href, policy);
        // 301-303 turn a write into a GET without its body, as browsers do; 307/308 keep both.
        if (res.statusCode <= 303 && method !== 'GET') {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const contentType = (first(res.headers['content-type']) ?? '').split(';')[0].trim().toLowerCase();
      const data = await readAtMost(res.body, init.maxBytes, Number(first(res.headers['content-length']) ?? NaN));
      return { url: url.href, status: res.statusCode, contentType, body: data };
    }
  } catch (err) {
    if (err instanceof OutboundError) throw err;
    throw deadline.signal.aborted ? new OutboundError('timeout', `No complete answer within ${init.timeoutMs} ms`) : asOutboundError(err);
  } finally {
    clearTimeout(timer);
  }
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function readAtMost(body: Dispatcher.ResponseData['body'], maxBytes: number, declaredLength: number): Promise<Buffer> {
  const tooLarge = () => new OutboundError('too-large', `The answer is larger than ${maxBytes} bytes`);
  // A declared length is only a hint (the body may be compressed): it lets a large answer fail at once.
  if (declaredLength > maxBytes) {
    body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** A failed request's error as an OutboundError naming its reason (the guard's refusal, an unknown host, a broken answer); others pass. */
export function asOutboundError(err: unknown): unknown {
  const refusal = guardRefusal(err);
  if (refusal) return new OutboundError('address', `This address is not allowed: ${refusal}`);
  const codes = new Set<string>();
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code) codes.add(code);
    else if (e.name === 'HTTPParserError') codes.add('HPE_');
    if (e instanceof AggregateError) for (const inner of e.errors) codes.add((inner as NodeJS.ErrnoException).code ?? '');
  }
  if (codes.has('ENOTFOUND') || codes.has('EAI_AGAIN') || codes.has('EAI_NODATA'))
    return new OutboundError('not-found', 'The host could not be found');
  if ([...codes].some((c) => /^(HPE_\w*|UND_ERR_RES_CONTENT_LENGTH_MISMATCH|UND_ERR_INFO|Z_\w+)$/.test(c)))
    return new OutboundError('bad-response', 'The answer was not valid HTTP');
  if ([...codes].some((c) => /^(E[A-Z]+|UND_ERR_\w+|ERR_TLS_.*|ERR_SSL_.*|UNABLE_TO_.*|CERT_.*|DEPTH_ZERO_.*|SELF_SIGNED_.*)$/.test(c)))
    return new OutboundError('connection', 'The connection failed');
  return err;
}
