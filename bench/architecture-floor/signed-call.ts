// The architecture floor's calls between its processes: keep-alive HTTP, each request signed with
// an HMAC-SHA256 over the caller, the time and the SHA-256 of the body, and checked by the receiver
// (the caller one it expects, the time within CLOCK_SKEW_MS, the signature in constant time), as
// Parley's services sign theirs (ADR 12). Bodies are bounded on both sides.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Agent, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** How far the caller's clock may be from the receiver's. */
const CLOCK_SKEW_MS = 30_000;
/** The largest body any of the three processes reads (a message is 4,000 characters at most). */
export const MAX_BODY_BYTES = 64 * 1024;

const CALLER = 'x-floor-caller';
const TIME = 'x-floor-time';
const SIGNATURE = 'x-floor-signature';

function signature(secret: string, caller: string, time: string, body: Buffer): string {
  const digest = createHash('sha256').update(body).digest('base64url');
  return createHmac('sha256', secret).update(`${caller}\n${time}\n${digest}`).digest('base64url');
}

/** A refusal with its HTTP status, answered as JSON `{message}`. */
export class BadRequest extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** The request's body, at most MAX_BODY_BYTES (413 beyond: the rest is read and dropped, so the answer reaches the caller). */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        reject(new BadRequest(413, 'Request body too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Throws BadRequest(401) unless the request is signed with `secret` by one of `callers`. */
export function verifySigned(req: IncomingMessage, body: Buffer, secret: string, callers: string[]): string {
  const [caller, time, given] = [CALLER, TIME, SIGNATURE].map((h) => req.headers[h]);
  if (typeof caller !== 'string' || typeof time !== 'string' || typeof given !== 'string') throw new BadRequest(401, 'Unsigned call');
  if (!callers.includes(caller)) throw new BadRequest(401, `Calls from ${caller} are not expected`);
  if (!(Math.abs(Date.now() - Number(time)) <= CLOCK_SKEW_MS)) throw new BadRequest(401, 'The call is too old or from the future');
  const expected = Buffer.from(signature(secret, caller, time, body));
  const received = Buffer.from(given);
  if (expected.length !== received.length || !timingSafeEqual(expected, received)) throw new BadRequest(401, 'Bad signature');
  return caller;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) };
  // A body too large is not read to its end: the connection is not reused.
  if (status === 413) headers.connection = 'close';
  res.writeHead(status, headers).end(json);
}

/** A signed POST client from `caller` to the process at `baseUrl`, on keep-alive connections. */
export function signedClient(caller: string, baseUrl: string, secret: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const target = new URL(baseUrl);
  return {
    /** POSTs `body` as JSON; the response is given unread (the caller streams or reads it). */
    post(path: string, body: unknown): Promise<IncomingMessage> {
      const payload = Buffer.from(JSON.stringify(body));
      const time = String(Date.now());
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          {
            agent,
            host: target.hostname,
            port: target.port,
            method: 'POST',
            path,
            headers: {
              'content-type': 'application/json',
              'content-length': payload.length,
              [CALLER]: caller,
              [TIME]: time,
              [SIGNATURE]: signature(secret, caller, time, payload),
            },
          },
          resolve,
        );
        req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${baseUrl}${path} within 30 s`)));
        req.on('error', reject);
        req.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}

/** A response's whole body as JSON, at most MAX_BODY_BYTES. */
export async function readJson<T>(res: IncomingMessage): Promise<T> {
  const body = await readBody(res);
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch {
    throw new Error(`not JSON (status ${res.statusCode}): ${body.toString('utf8').slice(0, 200)}`);
  }
}

/** Prints `listening PORT` once the server listens (what start.ts waits for), and stops on SIGTERM. */
export function announce(server: Server, onStop: () => Promise<unknown>): void {
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as { port: number }).port}`));
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void onStop().finally(() => process.exit(0));
  });
}
