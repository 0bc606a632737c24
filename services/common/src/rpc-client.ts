// Connect clients for calling another service: every call carries the caller's service token
// (service-auth.ts), the current request id and trace context (tracing.ts) and a deadline, so a slow dependency cannot hold a
// request forever. Both are interceptors, so they reach unary and streaming calls alike, as do the
// caller's own.
//
// Unary calls (nearly all calls between the services) go through the lean transport
// (transport/lean-unary.ts: the same protocol and interceptors without the library's per-call
// machinery; docs/benchmarks.md); streaming calls through @connectrpc/connect-node's transport.
// Both are spread over the service's replicas by transport/balanced.ts: the base URL may list
// several, or name a host whose addresses are looked up again every few seconds.
import { createClient, type Client, type Interceptor, type Transport } from '@connectrpc/connect';
import type { DescService } from '@bufbuild/protobuf';
import { createConnectTransport } from '@connectrpc/connect-node';
import { createAsyncIterable } from '@connectrpc/connect/protocol';
import { currentRequestId, REQUEST_ID_HEADER } from './context.ts';
import { DEVELOPMENT_SERVICE_SECRET, ROLE_HEADER, serviceTokenSource, type ServiceCredentials } from './service-auth.ts';
import { traceInterceptor } from './tracing.ts';
import { balance, closesConnection, endpointDraining, EndpointPool, isUnreachable, type Endpoint } from './transport/balanced.ts';
import { createLeanUnaryTransport, type UnaryTransportChoice } from './transport/lean-unary.ts';

export interface ServiceClientOptions {
  /** Deadline per call, in milliseconds. */
  timeoutMs?: number;
  /**
   * Who signs the calls: the calling process and the deployment's SERVICE_SECRET. Every service
   * passes its own; tests and tools that stand in for the gateway may leave it out (the gateway with
   * the development secret, which production refuses).
   */
  credentials?: ServiceCredentials;
  /**
   * The member's role every call carries unless the call names its own (ROLE_HEADER). Without
   * credentials the client stands in for the gateway acting for an owner, so it carries "owner".
   */
  role?: string;
  /** Run around every call, unary and streaming, after the kit's own (request id, service token). */
  interceptors?: Interceptor[];
  /** What carries unary calls: the lean transport unless 'library' is asked for. */
  unaryTransport?: UnaryTransportChoice;
  /** How often a host name's addresses are looked up again (SERVICE_RESOLVE_INTERVAL_MS). */
  resolveIntervalMs?: number;
  /** The endpoints to call, when the caller keeps them (tests, benchmarks); built from the base URL otherwise. */
  pool?: EndpointPool;
}

/** Sets the role header on a call that does not carry one already. */
function roleInterceptor(role: string): Interceptor {
  return (next) => (req) => {
    if (!req.header.has(ROLE_HEADER)) req.header.set(ROLE_HEADER, role);
    return next(req);
  };
}

/** The largest answer a call accepts (a chatbot's whole knowledge base fits many times over). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const requestIdInterceptor: Interceptor = (next) => (req) => {
  const id = currentRequestId();
  if (id) req.header.set(REQUEST_ID_HEADER, id);
  return next(req);
};

function serviceTokenInterceptor(credentials: ServiceCredentials): Interceptor {
  const token = serviceTokenSource(credentials);
  return (next) => (req) => {
    req.header.set('authorization', `Bearer ${token()}`);
    return next(req);
  };
}

// Calls between services stay on the local network: compressing them costs more CPU than the bytes
// saved, so a client neither compresses what it sends nor offers to accept compressed answers (the
// server then answers uncompressed; servers still accept gzip from any older client that sends it).
export function createServiceClient<T extends DescService>(service: T, baseUrl: string, opts: ServiceClientOptions = {}): Client<T> {
  return createClient(service, createServiceTransport(opts.pool ?? new EndpointPool(baseUrl, opts), opts));
}

/** The transport of a service client: every call, unary or streaming, to one of the pool's endpoints. */
function createServiceTransport(pool: EndpointPool, opts: ServiceClientOptions): Transport {
  const role = opts.role ?? (opts.credentials ? undefined : 'owner');
  const common = {
    defaultTimeoutMs: opts.timeoutMs ?? 5000,
    readMaxBytes: MAX_RESPONSE_BYTES,
    interceptors: [
      requestIdInterceptor,
      // A client span per call; its traceparent header carries the trace to the service.
      traceInterceptor,
      serviceTokenInterceptor(opts.credentials ?? { caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET }),
      ...(opts.interceptors ?? []),
      ...(role ? [roleInterceptor(role)] : []),
    ],
  };
  // The library's transport, one per endpoint, over that endpoint's pool for streams (no cap: a stream holds its connection).
  const libraries = new WeakMap<Endpoint, Transport>();
  const library = (ep: Endpoint): Transport => {
    let transport = libraries.get(ep);
    if (!transport) {
      transport = createConnectTransport({
        ...common,
        baseUrl: ep.baseUrl,
        httpVersion: '1.1',
        acceptCompression: [],
        nodeOptions: { agent: ep.streamAgent },
      });
      libraries.set(ep, transport);
    }
    return transport;
  };
  // The library hides its socket: only a connection never set up is known not to have reached a replica.
  const unreachable = (err: unknown) => (isUnreachable(err) ? ('unreachable' as const) : undefined);

  const stream: Transport['stream'] = async (method, signal, timeoutMs, header, input, contextValues) => {
    // A server stream's one request is kept, so a call that never reached a replica can send it again.
    const replay = method.methodKind === 'server_streaming' ? await collect(input) : undefined;
    return balance(
      pool,
      (ep) =>
        library(ep)
          .stream(method, signal, timeoutMs, header, replay ? createAsyncIterable(replay) : input, contextValues)
          .then((res) => noticeDraining(ep, res)),
      unreachable,
      {
        mayRetry: replay !== undefined,
        signal,
        // The endpoint counts as busy until the stream ends, however it ends.
        hold: (res, release) => ({ ...res, message: releasedAtEnd(res.message, release) }),
      },
    );
  };
  // The one place the transport of unary calls is chosen.
  const unary: Transport['unary'] =
    opts.unaryTransport === 'library'
      ? (method, signal, timeoutMs, header, input, contextValues) =>
          balance(
            pool,
            (ep) =>
              library(ep)
                .unary(method, signal, timeoutMs, header, input, contextValues)
                .then((res) => noticeDraining(ep, res)),
            unreachable,
            {
              mayRetry: true,
              signal,
            },
          )
      : createLeanUnaryTransport({ ...common, pool }).unary;
  return { unary, stream };
}

/** A replica answering `Connection: close` is draining: its endpoint sits out (transport/balanced.ts). */
function noticeDraining<R extends { header: Headers }>(ep: Endpoint, res: R): R {
  if (closesConnection(res.header.get('connection'))) endpointDraining(ep);
  return res;
}

async function collect<M>(input: AsyncIterable<M>): Promise<M[]> {
  const out: M[] = [];
  for await (const message of input) out.push(message);
  return out;
}

async function* releasedAtEnd<M>(messages: AsyncIterable<M>, release: () => void): AsyncIterable<M> {
  try {
    yield* messages;
  } finally {
    release();
  }
}
