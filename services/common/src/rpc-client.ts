// Connect clients for calling another service: every call carries the caller's service token
// (service-auth.ts), the current request id and a deadline, so a slow dependency cannot hold a
// request forever.
//
// Unary calls (nearly all calls between the services) speak the Connect protocol straight over a
// keep-alive node:http agent: one request written in one piece (binary proto with its length), the
// answer read in one piece. The generic transport of @connectrpc/connect-node routes each unary call
// through async iterables, linked abort signals and a "sentinel" error it builds on every call,
// which made a call between two services cost about twice the CPU of the HTTP exchange itself
// (docs/benchmarks.md). Streaming calls still go through that transport.
import { Agent, request } from 'node:http';
import { create, fromBinary, toBinary, type DescMessage, type DescMethodUnary, type DescService, type MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport, type UnaryResponse } from '@connectrpc/connect';
import { codeFromHttpStatus, errorFromJsonBytes, trailerDemux } from '@connectrpc/connect/protocol-connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { currentRequestId, REQUEST_ID_HEADER } from './context.ts';
import { headersFromNode } from './node-headers.ts';
import { DEVELOPMENT_SERVICE_SECRET, serviceTokenSource, type ServiceCredentials } from './service-auth.ts';

const requestIdInterceptor: Interceptor = (next) => async (req) => {
  const id = currentRequestId();
  if (id) req.header.set(REQUEST_ID_HEADER, id);
  return next(req);
};

export interface ServiceClientOptions {
  /** Deadline per call, in milliseconds. */
  timeoutMs?: number;
  /**
   * Who signs the calls: the calling process and the deployment's SERVICE_SECRET. Every service
   * passes its own; tests and tools that stand in for the gateway may leave it out (the gateway with
   * the development secret, which production refuses).
   */
  credentials?: ServiceCredentials;
}

/** The largest answer a unary call accepts (a chatbot's whole knowledge base fits many times over). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

// Calls between services stay on the local network: compressing them costs more CPU than the bytes
// saved, so a client neither compresses what it sends nor offers to accept compressed answers (the
// server then answers uncompressed; servers still accept gzip from any older client that sends it).
export function createServiceClient<T extends DescService>(service: T, baseUrl: string, opts: ServiceClientOptions = {}): Client<T> {
  const defaultTimeoutMs = opts.timeoutMs ?? 5000;
  const authorization = bearer(opts.credentials ?? { caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET });
  const streaming = createConnectTransport({
    baseUrl,
    httpVersion: '1.1',
    defaultTimeoutMs,
    acceptCompression: [],
    interceptors: [
      requestIdInterceptor,
      (next) => async (req) => {
        req.header.set('authorization', authorization());
        return next(req);
      },
    ],
  });
  return createClient(service, unaryTransport(baseUrl.replace(/\/+$/, ''), defaultTimeoutMs, authorization, streaming));
}

function bearer(credentials: ServiceCredentials): () => string {
  const token = serviceTokenSource(credentials);
  return () => `Bearer ${token()}`;
}

function unaryTransport(baseUrl: string, defaultTimeoutMs: number, authorization: () => string, streaming: Transport): Transport {
  // As Node's global agent: with a socket timeout set, the agent closes an idle connection a second
  // before the server's announced keep-alive timeout (Keep-Alive: timeout=5), so a call is never
  // written on a connection the server is closing (which would fail with ECONNRESET).
  const agent = new Agent({ keepAlive: true, scheduling: 'lifo', timeout: 5000 });
  return {
    unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
    ): Promise<UnaryResponse<I, O>> {
      // As in @connectrpc/connect: undefined takes the default, zero or less means no deadline.
      const deadline = timeoutMs === undefined ? defaultTimeoutMs : timeoutMs <= 0 ? undefined : timeoutMs;
      const message = create(method.input, input);
      const body = toBinary(method.input, message);
      const headers: Record<string, string> = {};
      if (header) new Headers(header).forEach((value, key) => (headers[key] = value));
      headers['content-type'] = 'application/proto';
      headers['connect-protocol-version'] = '1';
      headers['content-length'] = String(body.byteLength);
      headers.authorization = authorization();
      if (deadline !== undefined) headers['connect-timeout-ms'] = String(deadline);
      const requestId = currentRequestId();
      if (requestId) headers[REQUEST_ID_HEADER] = requestId;

      return new Promise<UnaryResponse<I, O>>((resolve, reject) => {
        if (signal?.aborted) return reject(canceled(signal));
        let settled = false;
        const finish = (outcome: () => void) => {
          if (settled) return;
          settled = true;
          if (timer) clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          outcome();
        };
        const fail = (err: ConnectError) => {
          finish(() => reject(err));
          req.destroy();
        };
        const onAbort = () => fail(canceled(signal!));
        const timer = deadline === undefined ? undefined : setTimeout(() => fail(new ConnectError('the operation timed out', Code.DeadlineExceeded)), deadline);
        signal?.addEventListener('abort', onAbort, { once: true });

        const req = request(`${baseUrl}/${method.parent.typeName}/${method.name}`, { method: 'POST', agent, headers });
        req.on('error', (err) => fail(fromNodeError(err)));
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) return fail(new ConnectError(`message size is larger than configured readMaxBytes ${MAX_RESPONSE_BYTES}`, Code.ResourceExhausted));
            chunks.push(chunk);
          });
          res.on('error', (err) => fail(fromNodeError(err)));
          res.on('end', () => {
            if (settled) return;
            const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
            const [responseHeader, trailer] = trailerDemux(headersFromNode(res.headers));
            const status = res.statusCode ?? 0;
            const contentType = responseHeader.get('content-type') ?? '';
            try {
              if (status === 200 && /^application\/proto(;|$)/i.test(contentType) && !encoded(responseHeader)) {
                const output = fromBinary(method.output, bytes);
                finish(() => resolve({ stream: false, service: method.parent, method, header: responseHeader, message: output, trailer }));
                return;
              }
              finish(() => reject(errorOf(status, contentType, bytes, responseHeader, trailer)));
            } catch (err) {
              finish(() => reject(ConnectError.from(err, Code.Internal)));
            }
          });
        });
        req.end(body);
      });
    },
    stream: streaming.stream.bind(streaming),
  };
}

function encoded(header: Headers): boolean {
  const encoding = header.get('content-encoding');
  return encoding !== null && encoding.toLowerCase() !== 'identity';
}

/** An error answer: the Connect error JSON when there is one, otherwise the code its HTTP status stands for. */
function errorOf(status: number, contentType: string, bytes: Uint8Array, header: Headers, trailer: Headers): ConnectError {
  if (status === 200) {
    return new ConnectError(encoded(header) ? `unsupported response encoding "${header.get('content-encoding')}"` : `unsupported content type ${contentType}`, Code.Internal, header);
  }
  const fromStatus = new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status), header);
  if (!/^application\/json(;|$)/i.test(contentType) || encoded(header)) return fromStatus;
  for (const [key, value] of trailer) header.append(key, value);
  try {
    return errorFromJsonBytes(bytes, header, fromStatus);
  } catch (err) {
    return err instanceof ConnectError ? err : fromStatus;
  }
}

function canceled(signal: AbortSignal): ConnectError {
  return ConnectError.from(signal.reason ?? new Error('This operation was aborted'), Code.Canceled);
}

/** Network failures as @connectrpc/connect-node reports them: unreachable → Unavailable, reset → Aborted. */
function fromNodeError(err: Error & { code?: string }): ConnectError {
  const code =
    err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' || err.code === 'ETIMEDOUT'
      ? Code.Unavailable
      : err.code === 'ECONNRESET' || err.code === 'ERR_STREAM_DESTROYED'
        ? Code.Aborted
        : Code.Internal;
  const ce = new ConnectError(err.message, code);
  ce.cause = err;
  return ce;
}
