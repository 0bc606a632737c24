// The OTLP half of tracing.ts, imported only when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans are
// recorded by OpenTelemetry's SDK and sent in batches over OTLP/HTTP in JSON to the endpoint's
// /v1/traces (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is; the exporter reads its other
// OTEL_EXPORTER_OTLP_* settings, such as headers, from the environment itself). The current span
// stays in context.ts: each span is started with its parent's ids as a remote parent, so the SDK
// needs no context manager of its own.
import { ROOT_CONTEXT, SpanKind as OtelSpanKind, SpanStatusCode, trace, type SpanContext } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { SpanKind, SpanRecorder } from './tracing.ts';

const KINDS: Record<SpanKind, OtelSpanKind> = {
  server: OtelSpanKind.SERVER,
  client: OtelSpanKind.CLIENT,
  internal: OtelSpanKind.INTERNAL,
  producer: OtelSpanKind.PRODUCER,
  consumer: OtelSpanKind.CONSUMER,
};

export function otlpRecorder(opts: { serviceName: string; instanceId: string; endpoint: string; tracesEndpoint?: string }): SpanRecorder {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: `parley-${opts.serviceName}`, 'service.instance.id': opts.instanceId }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: opts.tracesEndpoint || `${opts.endpoint.replace(/\/+$/, '')}/v1/traces` })),
    ],
  });
  const tracer = provider.getTracer('parley');
  return {
    start(name, kind, parent, attributes) {
      const parentContext = parent
        ? trace.setSpanContext(ROOT_CONTEXT, {
            traceId: parent.traceId,
            spanId: parent.spanId,
            traceFlags: Number.parseInt(parent.flags, 16),
            isRemote: true,
          } satisfies SpanContext)
        : ROOT_CONTEXT;
      const span = tracer.startSpan(name, { kind: KINDS[kind], attributes }, parentContext);
      const { traceId, spanId, traceFlags } = span.spanContext();
      return {
        context: { traceId, spanId, flags: traceFlags.toString(16).padStart(2, '0') },
        end(endAttributes, error, name) {
          if (name) span.updateName(name);
          if (endAttributes) span.setAttributes(endAttributes);
          if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
          span.end();
        },
      };
    },
    shutdown: () => provider.shutdown(),
  };
}
