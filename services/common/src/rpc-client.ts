// Connect clients for calling another service: every call carries the caller's service token
// (service-auth.ts), the current request id and trace context (tracing.ts) and a deadline, so a slow dependency cannot hold a
// request forever. Both are interceptors, so they reach unary and streaming calls alike, as do the
// caller's own.
//
// Unary calls (nearly all calls between the services) go through the lean transport
// (transport/lean-unary.ts: the same protocol and interceptors without the library's per-call
// machinery; docs/benchmarks.md); streaming calls through @connectrpc/connect-node's transport.
import { createClient, type Client, type Interceptor, type Transport } from '@connectrpc/connect';
import type { DescService } from '@bufbuild/protobuf';
import { createConnectTransport } from '@connectrpc/connect-node';
import { currentRequestId, REQUEST_ID_HEADER } from './context.ts';
import { DEVELOPMENT_SERVICE_SECRET, serviceTokenSource, type ServiceCredentials } from './service-auth.ts';
import { traceInterceptor } from './tracing.ts';
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
  /** Run around every call, unary and streaming, after the kit's own (request id, service token). */
  interceptors?: Interceptor[];
  /** What carries unary calls: the lean transport unless 'library' is asked for. */
  unaryTransport?: UnaryTransportChoice;
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
  const common = {
    baseUrl,
    defaultTimeoutMs: opts.timeoutMs ?? 5000,
    readMaxBytes: MAX_RESPONSE_BYTES,
    interceptors: [
      requestIdInterceptor,
      // A client span per call; its traceparent header carries the trace to the service.
      traceInterceptor,
      serviceTokenInterceptor(opts.credentials ?? { caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET }),
      ...(opts.interceptors ?? []),
    ],
  };
  const library = createConnectTransport({ ...common, httpVersion: '1.1', acceptCompression: [] });
  // The one place the transport of unary calls is chosen.
  const unary = opts.unaryTransport === 'library' ? library : createLeanUnaryTransport(common);
  const transport: Transport = { unary: unary.unary.bind(unary), stream: library.stream.bind(library) };
  return createClient(service, transport);
}
