// One JSON POST to a messaging provider's API, as the channel worker makes one for every answer it
// sends: over kept-alive connections (node:http and node:https), one deadline over connecting,
// sending and reading the answer, and no more of the answer read than `maxBytes`. fetch builds a
// Request, a Response, their web streams and an abort signal's timer for each call, which cost a
// channel's answer about as much CPU as the provider's whole exchange; this sends the same bytes.
// Redirects are not followed: a redirect reads as a provider out of reach, as fetch's
// `redirect: 'error'` made it.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface ProviderAnswer {
  status: number;
  /** The answer's text; "" when it was longer than `maxBytes` (read no further). */
  text: string;
}

/** The provider could not be reached, or did not answer in time: `name` says which (TimeoutError, RedirectError, or the socket's error). */
export class ProviderUnreachable extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

export type ProviderPost = (url: string, body: string, opts: { timeoutMs: number; maxBytes: number }) => Promise<ProviderAnswer>;

/** A poster with its own kept-alive connections (one per API client, so each provider's pool is its own). */
export function providerPost(): ProviderPost {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  return (url, body, { timeoutMs, maxBytes }) =>
    new Promise<ProviderAnswer>((resolve, reject) => {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const payload = Buffer.from(body);
      const req = (secure ? httpsRequest : httpRequest)(target, {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
      });
      let settled = false;
      const settle = (answer: ProviderAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(answer);
      };
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        req.destroy();
        reject(err instanceof ProviderUnreachable ? err : new ProviderUnreachable(err.name || 'Error', err.message));
      };
      const deadline = setTimeout(() => fail(new ProviderUnreachable('TimeoutError', `no answer within ${timeoutMs} ms`)), timeoutMs);
      req.on('error', fail);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          return fail(new ProviderUnreachable('RedirectError', `redirected (${status})`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= maxBytes) return void chunks.push(chunk);
          // Past the cap nothing more is read: the connection is dropped, the answer's text left unread.
          res.destroy();
          settle({ status, text: '' });
        });
        res.on('error', fail);
        res.on('end', () => settle({ status, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.end(payload);
    });
}
