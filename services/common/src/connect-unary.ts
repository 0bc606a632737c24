// The common case of a call between the services, answered without the generic Connect handler: a
// unary call in binary proto (what every service client sends, see rpc-client.ts), uncompressed.
// The generic handler (@connectrpc/connect-express) routes each call through async iterables,
// universal request and response objects and linked abort signals, which cost about as much CPU as
// the HTTP exchange itself (docs/benchmarks.md). Everything else (JSON, compressed bodies, GET,
// streaming methods) still goes to the generic handler, which answers exactly as before.
//
// The Connect protocol for a unary call, as implemented here: POST /<service>/<method> with
// Content-Type application/proto and the request message as the body; 200 with the response message
// (Content-Type application/proto); an error is its HTTP status for the code, with the error as
// JSON ({ code, message, details }) and the error's metadata as headers.
import { AsyncResource } from 'node:async_hooks';
import type { IncomingHttpHeaders } from 'node:http';
import { create, fromBinary, toBinary, type DescMessage, type DescMethodUnary, type DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, createHandlerContext, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import { codeToHttpStatus, errorToJsonBytes, parseTimeout, trailerMux } from '@connectrpc/connect/protocol-connect';
import type { RequestHandler, Response } from 'express';
import { headersFromNode } from './node-headers.ts';
import { assertNoNul } from './text-hygiene.ts';

type UnaryMethodImpl = (request: unknown, context: HandlerContext) => unknown;

interface UnaryRoute {
  service: DescService;
  method: DescMethodUnary<DescMessage, DescMessage>;
  impl: UnaryMethodImpl;
}

export interface UnaryRoutes {
  /** The router to give the service's `routes` function: it registers everything with `router` too. */
  recording(router: ConnectRouter): ConnectRouter;
  /** Express middleware answering the calls it can, passing the rest on. */
  handler(opts: { readMaxBytes: number; onUnexpected: (err: unknown, procedure: string) => void }): RequestHandler;
}

/** Headers the protocol owns: never copied from an error's metadata into the answer. */
const PROTOCOL_HEADERS = /^(content-type|content-length|content-encoding|accept-encoding|connect-.*|grpc-.*|trailer-.*)$/i;

export function unaryRoutes(): UnaryRoutes {
  const routes = new Map<string, UnaryRoute>();

  return {
    recording(router) {
      const recorder: ConnectRouter = {
        get handlers() {
          return router.handlers;
        },
        service(service, implementation, options) {
          for (const method of service.methods) {
            const impl = (implementation as Record<string, unknown>)[method.localName];
            if (method.methodKind === 'unary' && typeof impl === 'function') {
              routes.set(`/${service.typeName}/${method.name}`, {
                service,
                method: method as DescMethodUnary<DescMessage, DescMessage>,
                impl: (impl as UnaryMethodImpl).bind(implementation),
              });
            }
          }
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

    handler({ readMaxBytes, onUnexpected }) {
      return (req, res, next) => {
        if (req.method !== 'POST') return next();
        const route = routes.get(req.url);
        if (!route) return next();
        const encoding = req.headers['content-encoding'];
        if (req.headers['content-type'] !== 'application/proto' || (encoding !== undefined && encoding !== 'identity')) return next();

        const declared = Number(req.headers['content-length'] ?? NaN);
        // Not read at all: the connection cannot be reused.
        if (declared > readMaxBytes) return answerError(res, tooLarge(readMaxBytes), { close: true });
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
            void answer(route, req.headers, req.url, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), res, onUnexpected);
          }),
        );
      };
    },
  };
}

async function answer(
  route: UnaryRoute,
  requestHeaders: IncomingHttpHeaders,
  url: string,
  body: Uint8Array,
  res: Response,
  onUnexpected: (err: unknown, procedure: string) => void,
): Promise<void> {
  const timeout = parseTimeout(single(requestHeaders['connect-timeout-ms']) ?? null, Number.MAX_SAFE_INTEGER);
  const context = createHandlerContext({
    service: route.service,
    method: route.method,
    protocolName: 'connect',
    requestMethod: 'POST',
    url,
    timeoutMs: timeout.timeoutMs,
    requestHeader: headersFromNode(requestHeaders),
    responseHeader: { 'content-type': 'application/proto' },
  });
  // A caller that hangs up aborts the context, as the generic handler does.
  const onClose = () => {
    if (!res.writableFinished) context.abort(new ConnectError('the caller went away', Code.Canceled));
  };
  res.on('close', onClose);
  let status = 200;
  let bytes: Uint8Array;
  try {
    if (timeout.error) throw timeout.error;
    let input;
    try {
      input = fromBinary(route.method.input, body);
    } catch (err) {
      throw new ConnectError(`parse binary: ${(err as Error).message}`, Code.InvalidArgument);
    }
    assertNoNul(input);
    const output = await route.impl(input, context);
    bytes = toBinary(route.method.output, create(route.method.output, output as never));
  } catch (err) {
    let error: ConnectError;
    if (err instanceof ConnectError) error = err;
    else {
      onUnexpected(err, route.method.name);
      error = new ConnectError('Internal error', Code.Internal);
    }
    status = codeToHttpStatus(error.code);
    context.responseHeader.set('content-type', 'application/json');
    // An error relayed from another service keeps its payload, not its headers (as in Connect).
    if (!error.isWireError) error.metadata.forEach((value, key) => PROTOCOL_HEADERS.test(key) || context.responseHeader.append(key, value));
    bytes = errorToJsonBytes(error, {});
  } finally {
    // Ends the deadline's timer; a reason that is not an error costs no stack trace.
    context.abort('finished');
  }
  if (res.destroyed) return;
  send(res, status, trailerMux(context.responseHeader, context.responseTrailer), bytes);
}

/** An error decided before the call: its status, the error JSON, and no metadata. */
function answerError(res: Response, error: ConnectError, opts: { close?: boolean } = {}): void {
  const headers = new Headers({ 'content-type': 'application/json' });
  if (opts.close) headers.set('connection', 'close');
  send(res, codeToHttpStatus(error.code), headers, errorToJsonBytes(error, {}));
}

/** The whole answer in one write, with its length. */
function send(res: Response, status: number, headers: Headers, bytes: Uint8Array): void {
  const out: Record<string, string> = { 'content-length': String(bytes.byteLength) };
  headers.forEach((value, key) => (out[key] = value));
  res.writeHead(status, out);
  res.end(bytes);
}

const tooLarge = (max: number) => new ConnectError(`message size is larger than configured readMaxBytes ${max}`, Code.ResourceExhausted);

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

