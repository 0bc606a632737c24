// Spans of the work a request causes, in W3C trace context (context.ts carries the current one): the
// gateway's request, each RPC call made and served, the model call, each queue job processed. Without
// OTEL_EXPORTER_OTLP_ENDPOINT a span is only its ids (they reach the logs, the calls and the jobs) and
// none of OpenTelemetry's SDK is loaded; with it, tracing-export.ts is imported at start and every span
// is also recorded and sent over OTLP (docs/adr/0026-metrics-and-trace-context.md).
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { commonVars, readConfig } from './config.ts';
import { currentTrace, formatTraceparent, newSpanId, newTraceId, TRACEPARENT_HEADER, type TraceContext } from './context.ts';
import { histogram } from './metrics.ts';

export type SpanKind = 'server' | 'client' | 'internal' | 'producer' | 'consumer';
export type SpanAttributes = Record<string, string | number | boolean>;

export interface Span {
  /** Where the span sits: its trace and its own id (the work it covers runs under it: runWithRequestId). */
  readonly context: TraceContext;
  /** Ends the span; `error` marks it failed, `name` names it by what it turned out to be (a route). */
  end(attributes?: SpanAttributes, error?: string, name?: string): void;
}

/** What records spans when exporting (tracing-export.ts); absent, spans are ids alone. */
export interface SpanRecorder {
  start(name: string, kind: SpanKind, parent: TraceContext | undefined, attributes: SpanAttributes | undefined): Span;
  shutdown(): Promise<void>;
}

let recorder: SpanRecorder | undefined;

/** Starts a span, child of `parent` (a new trace without one). */
export function startSpan(name: string, kind: SpanKind, parent: TraceContext | undefined, attributes?: SpanAttributes): Span {
  if (recorder) return recorder.start(name, kind, parent, attributes);
  return {
    context: { traceId: parent?.traceId ?? newTraceId(), spanId: newSpanId(), flags: parent?.flags ?? '01' },
    end() {},
  };
}

/**
 * Loads the exporter when OTEL_EXPORTER_OTLP_ENDPOINT is set (validated at start with the process's
 * other settings, and again here); returns what flushes it at shutdown. Called once by a process's start (service.ts).
 */
export async function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Promise<() => Promise<void>> {
  const { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } = readConfig(
    { OTEL_EXPORTER_OTLP_ENDPOINT: commonVars.OTEL_EXPORTER_OTLP_ENDPOINT },
    env,
  );
  if (!endpoint || recorder) return async () => {};
  const { otlpRecorder } = await import('./tracing-export.ts');
  const started = otlpRecorder({
    serviceName,
    instanceId: instanceId(env),
    endpoint,
    tracesEndpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  });
  recorder = started;
  return async () => {
    if (recorder === started) recorder = undefined;
    await started.shutdown();
  };
}

/** This process among its replicas, in every log line and exported span: INSTANCE_ID, or host name and pid. */
export function instanceId(env: NodeJS.ProcessEnv = process.env): string {
  return readConfig({ INSTANCE_ID: commonVars.INSTANCE_ID }, env).INSTANCE_ID;
}

const rpcClientDuration = histogram(
  'parley_rpc_client_duration_seconds',
  'Calls this process made to another service, until the answer (a stream: until it starts), by service, method and Connect code.',
  ['service', 'method', 'code'],
);

/**
 * Every RPC call is a client span, and carries its traceparent (the call's span as parent) so the
 * service continues the trace; its duration is measured by procedure and outcome.
 */
export const traceInterceptor: Interceptor = (next) => async (req) => {
  const procedure = `${req.service.typeName}/${req.method.name}`;
  const span = startSpan(procedure, 'client', currentTrace(), {
    'rpc.system': 'connect_rpc',
    'rpc.service': req.service.typeName,
    'rpc.method': req.method.name,
  });
  req.header.set(TRACEPARENT_HEADER, formatTraceparent(span.context));
  const started = process.hrtime.bigint();
  const observe = (code: string) =>
    rpcClientDuration.labels(req.service.typeName, req.method.name, code).observe(Number(process.hrtime.bigint() - started) / 1e9);
  try {
    const res = await next(req);
    observe('ok');
    span.end();
    return res;
  } catch (err) {
    const code = connectCodeName(ConnectError.from(err).code);
    observe(code);
    span.end({ 'rpc.connect_rpc.error_code': code }, code);
    throw err;
  }
};

/** A Connect code as the protocol spells it: `not_found`, `deadline_exceeded`. */
const connectCodeName = (code: Code): string =>
  (Code[code] ?? 'unknown').replace(/[A-Z]/g, (c, at: number) => (at ? '_' : '') + c.toLowerCase());
