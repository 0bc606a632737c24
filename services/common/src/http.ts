// The Express app every service is built on: request ids and trace context, JSON access logs, health
// endpoints, the process's metrics (/metrics) and the ConnectRPC routes of the service.
import express, { type Express, type Request } from 'express';
import type { DescMethod } from '@bufbuild/protobuf';
import type { ConnectRouter, Interceptor } from '@connectrpc/connect';
import { expressConnectMiddleware } from '@connectrpc/connect-express';
import { currentRequest, parseTraceparent, REQUEST_ID_HEADER, runWithRequestId, setCurrentRoute, TRACEPARENT_HEADER } from './context.ts';
import { withDeadline } from './deadline.ts';
import type { Logger } from './logger.ts';
import {
  collectProcessMetrics,
  counter,
  histogram,
  METRICS_CONTENT_TYPE,
  metricsText,
  requestedNames,
  type CounterSeries,
} from './metrics.ts';
import { errorInterceptor } from './rpc-errors.ts';
import { requireServiceToken, type ServiceTrust } from './service-auth.ts';
import { startSpan } from './tracing.ts';
import { noNulInterceptor } from './text-hygiene.ts';
import { createLeanUnaryHandler, type UnaryTransportChoice } from './transport/lean-unary.ts';

/** A dependency that must answer for the service to be ready (its database, Redis). */
export type ReadinessCheck = { name: string; check: () => Promise<unknown> };

/** What every service's /readyz asks: its database and Redis both answer. */
export function dataReadiness(
  db: { $queryRaw(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<unknown> },
  redis: { ping(): Promise<unknown> },
): ReadinessCheck[] {
  return [
    { name: 'database', check: async () => db.$queryRaw`SELECT 1` },
    { name: 'redis', check: () => redis.ping() },
  ];
}

export interface ServiceAppOptions {
  logger: Logger;
  routes: (router: ConnectRouter) => void;
  readiness: ReadinessCheck[];
  /** Who may call: every route but /healthz, /readyz and /metrics needs a service token (service-auth.ts). */
  trust: ServiceTrust;
  /** Run around every call, after the kit's own (unexpected errors hidden, NUL refused), on either handler. */
  interceptors?: Interceptor[];
  /** What answers binary unary calls: the lean handler unless 'library' is asked for. */
  unaryTransport?: UnaryTransportChoice;
  /** Extra plain HTTP routes (for example media files); mounted before the RPC routes. */
  extend?: (app: Express) => void;
  /** The largest request body read (DEFAULT_READ_MAX_BYTES unless a service takes larger uploads). */
  readMaxBytes?: number;
}

export const DEFAULT_READ_MAX_BYTES = 8 * 1024 * 1024;

const rpcServed = counter(
  'parley_rpc_served_total',
  'RPC calls this process received past the service-token check (answered or refused), by service and method.',
  ['service', 'method'],
);
const servedSeries = new WeakMap<DescMethod, { served: CounterSeries; route: string }>();

/**
 * Counts each call with a valid service token, unary and streaming alike, before the kit's own
 * checks, and names the request by its procedure for the duration metric.
 */
const servedInterceptor: Interceptor = (next) => (req) => {
  let series = servedSeries.get(req.method);
  if (!series) {
    series = {
      served: rpcServed.series({ service: req.method.parent.typeName, method: req.method.name }),
      route: `${req.method.parent.typeName}/${req.method.name}`,
    };
    servedSeries.set(req.method, series);
  }
  series.served.inc();
  setCurrentRoute(series.route);
  return next(req);
};

/** Every process's request durations: the services' here, the gateway's in its own request context. */
export const requestDuration = histogram(
  'parley_http_request_duration_seconds',
  'Requests this process answered, until the last byte (a stream: its whole length), by route (a service: its RPC procedure), method and status.',
  ['route', 'method', 'status'],
);

/** Paths answered without a service token and left out of the access log (probes and scrapes). */
const OPEN_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function createServiceApp(opts: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  collectProcessMetrics();
  app.use((req, res, next) => {
    // The caller's trace continues here (a new one when it sent none): the request is a server span.
    const span = startSpan('request', 'server', parseTraceparent(req.header(TRACEPARENT_HEADER)));
    runWithRequestId(
      req.header(REQUEST_ID_HEADER),
      () => {
        const started = process.hrtime.bigint();
        const path = req.path;
        const request = currentRequest();
        const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
        // On close, which also comes when the caller left before the answer was over.
        res.on('close', () => {
          // A path no route knows is 'other': the label never holds what a caller made up.
          const route = request?.route ?? (OPEN_PATHS.has(path) ? path : 'other');
          requestDuration.labels(route, req.method, String(res.statusCode)).observe(seconds());
          span.end(
            { 'http.route': route, 'http.response.status_code': res.statusCode },
            res.statusCode >= 500 ? `status ${res.statusCode}` : undefined,
            route,
          );
        });
        res.on('finish', () => {
          if (OPEN_PATHS.has(path)) return;
          opts.logger.info({ method: req.method, path, status: res.statusCode, ms: seconds() * 1000 }, 'request');
        });
        next();
      },
      span.context,
    );
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      opts.readiness.map(async ({ name, check }) => {
        try {
          await withDeadline(check(), 2000, 'timed out after 2000 ms');
          return [name, 'ok'] as const;
        } catch (err) {
          return [name, `error: ${(err as Error).message}`] as const;
        }
      }),
    );
    const ready = results.every(([, s]) => s === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: Object.fromEntries(results) });
  });
  // The process's metrics (metrics.ts), like the probes open to anyone who reaches the internal
  // port: counts, durations and depths, nothing of what a visitor sent.
  app.get('/metrics', async (req, res) => {
    res.type(METRICS_CONTENT_TYPE).send(await metricsText(requestedNames(req.query)));
  });
  // Before every other route, so no handler runs for a caller without the deployment's secret.
  app.use(requireServiceToken(opts.trust, (reason) => opts.logger.warn({ reason }, 'call refused: no valid service token')));
  opts.extend?.(app);
  const readMaxBytes = opts.readMaxBytes ?? DEFAULT_READ_MAX_BYTES;
  const interceptors = [servedInterceptor, errorInterceptor(opts.logger), noNulInterceptor, ...(opts.interceptors ?? [])];
  // The one place the handler of binary unary calls (every call between the services) is chosen:
  // the lean one, with the same interceptors, unless asked otherwise; the rest (JSON, compressed,
  // GET, streaming) always goes to the generic Connect handler.
  const lean =
    opts.unaryTransport === 'library'
      ? undefined
      : createLeanUnaryHandler({
          readMaxBytes,
          interceptors,
          onUnexpected: (err, procedure) => opts.logger.error({ err, procedure }, 'unhandled error in RPC'),
        });
  if (lean) app.use(lean.middleware);
  app.use(
    expressConnectMiddleware({
      routes: (router) => opts.routes(lean ? lean.recording(router) : router),
      interceptors,
      readMaxBytes,
    }),
  );
  app.use((_req, res) => {
    res.status(404).json({ message: 'Not found' });
  });
  return app;
}

export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? '';
}
