// Connect clients for calling another service: every call carries the current request id and a
// deadline, so a slow dependency cannot hold a request forever.
import { createClient, type Client, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';
import { currentRequestId, REQUEST_ID_HEADER } from './context.ts';

const requestIdInterceptor: Interceptor = (next) => async (req) => {
  const id = currentRequestId();
  if (id) req.header.set(REQUEST_ID_HEADER, id);
  return next(req);
};

export interface ServiceClientOptions {
  /** Deadline per call, in milliseconds. */
  timeoutMs?: number;
}

// Calls between services stay on the local network: compressing them costs more CPU than the bytes
// saved, so a client neither compresses what it sends nor offers to accept compressed answers (the
// server then answers uncompressed; servers still accept gzip from any older client that sends it).
export function createServiceClient<T extends DescService>(service: T, baseUrl: string, opts: ServiceClientOptions = {}): Client<T> {
  const transport = createConnectTransport({
    baseUrl,
    httpVersion: '1.1',
    defaultTimeoutMs: opts.timeoutMs ?? 5000,
    acceptCompression: [],
    interceptors: [requestIdInterceptor],
  });
  return createClient(service, transport);
}
