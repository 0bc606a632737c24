// The lean Connect transport: unary calls in binary proto, uncompressed, over HTTP/1.1 keep-alive
// (every call between the services), on both sides of the wire. @connectrpc/connect's generic client
// and handler route each unary call through async iterables, linked abort signals and a "sentinel"
// error built per call, which cost about as much CPU as the HTTP exchange itself (docs/benchmarks.md).
// This module speaks the same protocol without them and runs interceptors exactly as the library
// does, so which transport carries a call changes nothing a caller or an implementation can see:
// test/transport.test.ts runs one suite against both. Streaming calls, JSON, compressed bodies and
// GET stay with the library (rpc-client.ts and http.ts make that choice, each in one place).
import { AsyncResource } from 'node:async_hooks';
import { request, type IncomingHttpHeaders } from 'node:http';
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type DescService,
  type MessageInitShape,
} from '@bufbuild/protobuf';
import {
  appendHeaders,
  Code,
  ConnectError,
  createContextValues,
  type ConnectRouter,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from '@connectrpc/connect';
import { mergeNonProtocolHeaders } from '@connectrpc/connect/protocol';
import {
  codeToHttpStatus,
  errorFromJsonBytes,
  errorToJsonBytes,
  parseTimeout,
  validateResponseWithCompression,
} from '@connectrpc/connect/protocol-connect';
import type { RequestHandler, Response } from 'express';
import { PlainHeaders } from './plain-headers.ts';
import {
  balance,
  closesConnection,
  endpointDraining,
  isUnreachable,
  type Endpoint,
  type EndpointPool,
  type NeverReached,
} from './balanced.ts';

/** Which transport carries unary calls: this module's, or the library's (comparison tests; a way back). */
export type UnaryTransportChoice = 'lean' | 'library';

const PROTO = 'application/proto';

// ---------------------------------------------------------------------------------------------
// Client

export interface LeanClientOptions {
  /** The service's endpoints (balanced.ts): each call goes to the least busy one. */
  pool: EndpointPool;
  /** Deadline of a call that names none; as in the library, a call's zero or less means none. */
  defaultTimeoutMs?: number;
  /** Run around every call, first to last, as the library runs them. */
  interceptors?: Interceptor[];
  /** The largest answer accepted (ResourceExhausted beyond it). */
  readMaxBytes: number;
}

type UnaryFn = (req: UnaryRequest) => Promise<UnaryResponse>;

/** The unary half of a Transport; pair it with the library's transport for streaming calls. */
export function createLeanUnaryTransport(opts: LeanClientOptions): Pick<Transport, 'unary'> {
  const { pool, readMaxBytes } = opts;
  const baseUrl = pool.displayBase;
  // The innermost step, under the interceptors: a call sent again (it never reached a replica) runs
  // them once.
  const call = applyInterceptors(
    (req) =>
      balance(pool, (ep) => send(ep, req, readMaxBytes), neverReached, {
        mayRetry: true,
        signal: req.signal,
      }),
    opts.interceptors,
  );

  return {
    unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      const deadline = timeoutMs === undefined ? opts.defaultTimeoutMs : timeoutMs <= 0 ? undefined : timeoutMs;
      const requestHeader = new PlainHeaders(header);
      requestHeader.set('content-type', PROTO);
      requestHeader.set('connect-protocol-version', '1');
      if (deadline !== undefined) requestHeader.set('connect-timeout-ms', String(deadline));
      // One signal for the call, aborted by the caller's signal or the deadline. Unlike the library,
      // it is not aborted when the call succeeds: that abort built a DOMException on every call.
      const controller = new AbortController();
      const onAbort = () => controller.abort(signal!.reason);
      const timer =
        deadline === undefined
          ? undefined
          : setTimeout(() => controller.abort(new ConnectError('the operation timed out', Code.DeadlineExceeded)), deadline);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      return call({
        stream: false,
        service: method.parent,
        method: method as DescMethodUnary,
        requestMethod: 'POST',
        url: `${baseUrl}/${method.parent.typeName}/${method.name}`,
        signal: controller.signal,
        header: requestHeader,
        contextValues: contextValues ?? createContextValues(),
        message: create(method.input, input),
      }).then(
        (res) => {
          done();
          return res as UnaryResponse<I, O>;
        },
        (err: unknown) => {
          done();
          // As the library: once the call's signal has fired, its reason is the error.
          throw controller.signal.aborted ? aborted(controller.signal) : ConnectError.from(err);
        },
      );
    },
  };
}

/**
 * The largest request body a call may be sent again with: one that small goes to the socket in one
 * write, so a failure before that write completed means no byte of it left this process.
 */
const RETRYABLE_BODY_BYTES = 16 * 1024;

/** Failures of `send` that provably never reached a replica (ADR 27). */
const notDelivered = new WeakMap<object, NeverReached>();
const neverReached = (err: unknown): NeverReached | undefined => (typeof err === 'object' && err ? notDelivered.get(err) : undefined);

/** One exchange with one endpoint: the request written in one piece with its length, the answer read in one piece. */
function send(ep: Endpoint, req: UnaryRequest, readMaxBytes: number): Promise<UnaryResponse> {
  const { method, signal } = req;
  return new Promise<UnaryResponse>((resolve, reject) => {
    if (signal.aborted) return reject(aborted(signal));
    if (req.requestMethod !== 'POST')
      return reject(new ConnectError(`the lean transport sends POST only, not ${req.requestMethod}`, Code.Internal));
    const body = toBinary(method.input, req.message);
    // The record as it is (a copy: a call sent again reuses the request), unless an interceptor replaced the headers.
    const headers: Record<string, string> = req.header instanceof PlainHeaders ? { ...req.header.record } : {};
    if (!(req.header instanceof PlainHeaders)) req.header.forEach((value, key) => (headers[key] = value));
    headers['content-length'] = String(body.byteLength);

    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    const fail = (err: ConnectError) => {
      settle(() => reject(err));
      http.destroy();
    };
    const onAbort = () => fail(aborted(signal));
    signal.addEventListener('abort', onAbort, { once: true });

    const http = request(endpointUrl(ep, req.url), { method: 'POST', agent: ep.agent, headers });
    // Whether the request reached the socket whole: until then, a failure left no byte on the wire
    // (one write for a small body), and the call may be sent again.
    let written = false;
    http.once('finish', () => (written = true));
    http.on('error', (err: Error & { code?: string }) => {
      const ce = fromNodeError(err);
      if (isUnreachable(err)) notDelivered.set(ce, 'unreachable');
      else if (!written && body.byteLength <= RETRYABLE_BODY_BYTES) notDelivered.set(ce, 'closed-before-write');
      fail(ce);
    });
    http.on('response', (res) => {
      if (closesConnection(res.headers.connection)) endpointDraining(ep);
      const [header, trailer] = demuxFromNode(res.headers);
      const status = res.statusCode ?? 0;
      let verdict: ReturnType<typeof validateResponseWithCompression>;
      try {
        // The library's own check of status, content type and encoding (none accepted), before the body.
        verdict = validateResponseWithCompression('unary', [], true, status, header);
      } catch (err) {
        return fail(ConnectError.from(err));
      }
      const declared = header.has('content-length') ? Number(header.get('content-length')) : undefined;
      if (declared !== undefined && declared > readMaxBytes) return fail(tooLarge(readMaxBytes, declared));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > readMaxBytes) return fail(tooLarge(readMaxBytes));
        chunks.push(chunk);
      });
      res.on('error', (err) => fail(fromNodeError(err)));
      res.on('end', () => {
        if (settled) return;
        const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        try {
          if (declared !== undefined && size !== declared)
            throw new ConnectError(`protocol error: promised ${declared} bytes, received ${size}`, Code.InvalidArgument);
          if (verdict.isUnaryError) throw errorFromJsonBytes(bytes, appendHeaders(header, trailer), verdict.unaryError);
          const message = parseBinary(method.output, bytes, Code.Internal);
          settle(() => resolve({ stream: false, service: method.parent, method, header, message, trailer }));
        } catch (err) {
          settle(() => reject(ConnectError.from(err)));
        }
      });
    });
    http.end(body);
  });
}

/**
 * The answer's headers and its trailers (Connect's `trailer-` fields, prefix removed), read from
 * Node's parsed headers in one pass: trailerDemux(headersFromNode(raw)) without the Headers between.
 */
function demuxFromNode(raw: IncomingHttpHeaders): [Headers, Headers] {
  const header = new Headers();
  const trailer = new Headers();
  for (const key in raw) {
    const value = raw[key];
    if (value === undefined) continue;
    const into = key.startsWith('trailer-') ? trailer : header;
    const name = into === trailer ? key.slice(8) : key;
    if (Array.isArray(value)) for (const v of value) into.append(name, v);
    else into.append(name, value);
  }
  return [header, trailer];
}

/** The call's URL on the endpoint: the path after the base URL the interceptors were shown. */
function endpointUrl(ep: Endpoint, url: string): string {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash < 0 ? ep.baseUrl : ep.baseUrl + url.slice(slash);
}

function aborted(signal: AbortSignal): ConnectError {
  return ConnectError.from(signal.reason ?? new Error('This operation was aborted'), Code.Canceled);
}

/** Network failures as @connectrpc/connect-node reports them: unreachable → Unavailable, reset → Aborted. */
function fromNodeError(err: Error & { code?: string }): ConnectError {
  const code =
    err.code === 'ECONNREFUSED' ||
    err.code === 'ENOTFOUND' ||
    err.code === 'EAI_AGAIN' ||
    err.code === 'ETIMEDOUT' ||
    err.code === 'ECONNTIMEOUT' ||
    err.code === 'EHOSTUNREACH' ||
    err.code === 'ENETUNREACH'
      ? Code.Unavailable
      : err.code === 'ECONNRESET' || err.code === 'ERR_STREAM_DESTROYED' || err.code === 'ERR_STREAM_WRITE_AFTER_END'
        ? Code.Aborted
        : Code.Internal;
  const ce = new ConnectError(err.message, code);
  ce.cause = err;
  return ce;
}

// ---------------------------------------------------------------------------------------------
// Server

type UnaryMethodImpl = (request: unknown, context: HandlerContext) => unknown;

interface UnaryRoute {
  method: DescMethodUnary;
  impl: UnaryMethodImpl;
}

export interface LeanHandlerOptions {
  /** The largest request accepted (ResourceExhausted beyond it). */
  readMaxBytes: number;
  /** Run around every implementation, first to last: the same list the generic handler gets. */
  interceptors?: Interceptor[];
  /** A failure outside the implementation and its interceptors (encoding the answer). */
  onUnexpected: (err: unknown, procedure: string) => void;
}

export interface LeanUnaryHandler {
  /** The router to give the service's `routes` function: it registers everything with `router` too. */
  recording(router: ConnectRouter): ConnectRouter;
  /** Express middleware answering the calls it can (binary, uncompressed unary POSTs), passing the rest on. */
  middleware: RequestHandler;
}

export function createLeanUnaryHandler(opts: LeanHandlerOptions): LeanUnaryHandler {
  const routes = new Map<string, UnaryRoute>();
  return {
    recording(router) {
      const recorder: ConnectRouter = {
        get handlers() {
          return router.handlers;
        },
        service(service, implementation, options) {
          recordService(routes, service, implementation as Record<string, unknown>);
          router.service(service, implementation, options);
          return recorder;
        },
        rpc(method, impl, options) {
          router.rpc(method, impl, options);
          return recorder;
        },
      };
      return recorder;
    },

    middleware(req, res, next) {
      if (req.method !== 'POST') return next();
      const route = routes.get(req.url);
      if (!route) return next();
      const encoding = req.headers['content-encoding'];
      if (req.headers['content-type'] !== PROTO || (encoding !== undefined && encoding !== 'identity')) return next();

      const { readMaxBytes } = opts;
      const declared = Number(req.headers['content-length'] ?? NaN);
      // Not read at all: the connection cannot be reused.
      if (declared > readMaxBytes) return answerError(res, tooLarge(readMaxBytes, declared), { close: true });
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= readMaxBytes) chunks.push(chunk);
      });
      // Bound to this request's async context (its request id), which the socket's events do not carry.
      req.on(
        'end',
        AsyncResource.bind(() => {
          if (size > readMaxBytes) return answerError(res, tooLarge(readMaxBytes));
          void answer(route, req.headers, req.url, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), res, opts);
        }),
      );
    },
  };
}

function recordService(routes: Map<string, UnaryRoute>, service: DescService, implementation: Record<string, unknown>): void {
  for (const method of service.methods) {
    const impl = implementation[method.localName];
    if (method.methodKind === 'unary' && typeof impl === 'function') {
      routes.set(`/${service.typeName}/${method.name}`, {
        method: method as DescMethodUnary,
        impl: (impl as UnaryMethodImpl).bind(implementation),
      });
    }
  }
}

/** One call, as the library's Connect handler answers it (protocol-connect/handler-factory). */
async function answer(
  route: UnaryRoute,
  requestHeaders: IncomingHttpHeaders,
  url: string,
  body: Uint8Array,
  res: Response,
  opts: LeanHandlerOptions,
): Promise<void> {
  const { method } = route;
  const timeout = parseTimeout(single(requestHeaders['connect-timeout-ms']) ?? null, Number.MAX_SAFE_INTEGER);
  const context = handlerContext(route, url, timeout.timeoutMs, requestHeaders);
  // A caller that hangs up aborts the context, as the generic handler does.
  const onClose = () => {
    if (!res.writableFinished) context.abort(new ConnectError('the caller went away', Code.Canceled));
  };
  res.on('close', onClose);
  let status = 200;
  let bytes: Uint8Array;
  try {
    if (timeout.error) throw timeout.error;
    // Deliberately InvalidArgument (the library's handler says Internal): the caller sent it.
    const input = parseBinary(method.input, body, Code.InvalidArgument);
    const implementation: UnaryFn = async (req) => ({
      stream: false,
      service: method.parent,
      method,
      header: context.responseHeader,
      trailer: context.responseTrailer,
      message: create(
        method.output,
        (await route.impl(req.message, { ...context, requestHeader: req.header, signal: req.signal, values: req.contextValues })) as never,
      ),
    });
    const result = await applyInterceptors(
      implementation,
      opts.interceptors,
    )({
      stream: false,
      service: method.parent,
      method,
      requestMethod: 'POST',
      url,
      signal: context.signal,
      header: context.requestHeader,
      contextValues: context.values,
      message: input,
    });
    replaceHeaders(context.responseHeader, result.header);
    replaceHeaders(context.responseTrailer, result.trailer);
    bytes = toBinary(method.output, result.message);
  } catch (err) {
    let error: ConnectError;
    if (err instanceof ConnectError) error = err;
    else {
      opts.onUnexpected(err, method.name);
      error = new ConnectError('Internal error', Code.Internal);
    }
    status = codeToHttpStatus(error.code);
    context.responseHeader.set('content-type', 'application/json');
    // An error relayed from another service keeps its payload, not its headers (as in Connect).
    if (!error.isWireError) mergeNonProtocolHeaders(context.responseHeader, error.metadata);
    bytes = errorToJsonBytes(error, {});
  } finally {
    // Ends the deadline's timer; a reason that is not an error costs no stack trace.
    context.abort('finished');
  }
  if (res.destroyed) return;
  sendAnswer(res, status, context.responseHeader, bytes, context.responseTrailer);
}

/**
 * The call's context, as the library's createHandlerContext makes it (the same fields, the deadline's
 * signal aborted with its DeadlineExceeded error, `abort` ending the timer), without what it copies:
 * the request headers read from Node's object once into a record (plain-headers.ts), one
 * AbortController for the deadline and the context instead of two linked ones.
 */
function handlerContext(
  route: UnaryRoute,
  url: string,
  timeoutMs: number | undefined,
  requestHeaders: IncomingHttpHeaders,
): HandlerContext & { abort(reason?: unknown): void } {
  const { method } = route;
  const controller = new AbortController();
  const expire = () => controller.abort(new ConnectError('the operation timed out', Code.DeadlineExceeded));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let deadline: number | undefined;
  if (timeoutMs !== undefined) {
    deadline = Date.now() + timeoutMs;
    if (timeoutMs <= 0) expire();
    else timer = setTimeout(expire, timeoutMs);
  }
  return {
    service: method.parent,
    method,
    protocolName: 'connect',
    requestMethod: 'POST',
    url,
    signal: controller.signal,
    timeoutMs: () => (deadline === undefined ? undefined : deadline - Date.now()),
    requestHeader: PlainHeaders.fromNode(requestHeaders),
    responseHeader: new PlainHeaders({ 'content-type': PROTO }),
    responseTrailer: new PlainHeaders(),
    values: createContextValues(),
    abort(reason?: unknown) {
      clearTimeout(timer);
      if (!controller.signal.aborted) controller.abort(reason);
    },
  };
}

/** What an interceptor answered with other header objects than the context's (as the library copies them). */
function replaceHeaders(into: Headers, from: Headers): void {
  if (from === into) return;
  for (const key of [...into.keys()]) into.delete(key);
  from.forEach((value, key) => into.set(key, value));
}

/** An error decided before the call: its status, the error JSON, and no metadata. */
function answerError(res: Response, error: ConnectError, opts: { close?: boolean } = {}): void {
  const headers = new Headers({ 'content-type': 'application/json' });
  if (opts.close) headers.set('connection', 'close');
  sendAnswer(res, codeToHttpStatus(error.code), headers, errorToJsonBytes(error, {}));
}

/** The whole answer in one write, with its length; the trailers as Connect's unary `trailer-` fields (trailerMux's). */
function sendAnswer(res: Response, status: number, headers: Headers, bytes: Uint8Array, trailers?: Headers): void {
  const out: Record<string, string> = { 'content-length': String(bytes.byteLength) };
  copyHeaders(out, headers, '');
  if (trailers) copyHeaders(out, trailers, 'trailer-');
  res.writeHead(status, out);
  res.end(bytes);
}

/** Each of `from`'s fields into `out` under `prefix`, a second value of a name joined as Headers' append joins it. */
function copyHeaders(out: Record<string, string>, from: Headers, prefix: string): void {
  const add = (value: string, key: string) => {
    const name = prefix + key;
    out[name] = Object.hasOwn(out, name) ? `${out[name]}, ${value}` : value;
  };
  if (from instanceof PlainHeaders) for (const key of Object.keys(from.record)) add(from.record[key], key);
  else from.forEach(add);
}

// ---------------------------------------------------------------------------------------------
// Both sides

/** `next` wrapped by the interceptors, the first outermost (the library's own is not exported). */
function applyInterceptors(next: UnaryFn, interceptors: readonly Interceptor[] | undefined): UnaryFn {
  let fn = next;
  for (let i = (interceptors?.length ?? 0) - 1; i >= 0; i--) fn = interceptors![i](fn as never) as UnaryFn;
  return fn;
}

function parseBinary<D extends DescMessage>(schema: D, bytes: Uint8Array, code: Code) {
  try {
    return fromBinary(schema, bytes);
  } catch (err) {
    throw new ConnectError(`parse binary: ${(err as Error).message}`, code);
  }
}

const tooLarge = (max: number, size?: number) =>
  new ConnectError(
    size === undefined
      ? `message size is larger than configured readMaxBytes ${max}`
      : `message size ${size} is larger than configured readMaxBytes ${max}`,
    Code.ResourceExhausted,
  );

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
