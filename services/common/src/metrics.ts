// The process's metrics in Prometheus' text format, on prom-client's registry (docs/metrics.md lists
// every one; docs/adr/0026-metrics-and-trace-context.md says why prom-client). Every service serves
// them at GET /metrics on its own port (http.ts), the gateway on its internal METRICS_PORT
// (metrics-server.ts). The kit measures at its own choke points: statements sent to PostgreSQL and
// pool use (database.ts), RPC calls served and request durations (http.ts), calls made (tracing.ts),
// jobs published and processed and queue depth (queues.ts).
//
// Label values are names the code knows in advance (a schema, an RPC procedure, a route template, a
// queue), never a visitor's input, so the series stay few. The registry is the process's: the
// services a test starts in one process share it, and their labels tell them apart.
import { collectDefaultMetrics, Counter as PromCounter, Gauge, Histogram, Registry, type Metric } from 'prom-client';

export const registry = new Registry();

export const METRICS_CONTENT_TYPE = registry.contentType;

/** One series of a counter: its labels bound once, so counting on a hot path builds nothing. */
export interface CounterSeries {
  inc(by?: number): void;
  /** What this series counted since the process started. */
  readonly value: number;
}

export interface Counter<L extends string> {
  /** The series with these label values (created at 0 on first use). */
  series(labels: Record<L, string>): CounterSeries;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

interface Registered {
  help: string;
  labelNames: string;
  metric: Metric;
}
const registered = new Map<string, Registered>();

/**
 * The metric `name`, created by `make` on first use. Asking again for the same name returns the same
 * metric (modules of a test process that build several services ask more than once); asking with
 * other help or labels is a programming error.
 */
function once<M extends Metric>(name: string, help: string, labelNames: readonly string[], make: () => M): M {
  if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name ${name}`);
  const known = registered.get(name);
  if (known) {
    if (known.help !== help || known.labelNames !== labelNames.join())
      throw new Error(`metric ${name} is already registered with other help or labels`);
    return known.metric as M;
  }
  const metric = make();
  registered.set(name, { help, labelNames: labelNames.join(), metric });
  return metric;
}

/** The process's counter `name` (`<namespace>_<what>_total`). */
export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  const metric = once(name, help, labelNames, () => new PromCounter({ name, help, labelNames, registers: [registry] }));
  return {
    series(labels) {
      const child = metric.labels(labels as Partial<Record<L, string>>);
      // prom-client reads a value only asynchronously; the series keeps its own tally for readers in code.
      let value = 0;
      return {
        inc(by = 1) {
          value += by;
          child.inc(by);
        },
        get value() {
          return value;
        },
      };
    },
  };
}

/** Seconds, from a millisecond or two (a cached RPC) to the model's longest answers. */
export const DURATION_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The process's histogram `name` (`<namespace>_<what>_seconds`). */
export function histogram<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets = DURATION_BUCKETS,
): Histogram<L> {
  return once(name, help, labelNames, () => new Histogram({ name, help, labelNames, buckets, registers: [registry] }));
}

/**
 * The process's gauge `name`. With `collect`, the gauge is computed when scraped (and only then):
 * for values that cost a query to know, such as a queue's depth.
 */
export function gauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  collect?: (gauge: Gauge<L>) => Promise<void> | void,
): Gauge<L> {
  return once(name, help, labelNames, () =>
    collect
      ? new Gauge({
          name,
          help,
          labelNames,
          registers: [registry],
          async collect() {
            await collect(this);
          },
        })
      : new Gauge({ name, help, labelNames, registers: [registry] }),
  );
}

let processMetrics = false;

/**
 * Node's own metrics (CPU, memory, heap, event loop delay, garbage collection, handles) under their
 * usual names (`process_*`, `nodejs_*`), so the common Node.js dashboards read them as they are.
 * Started once per process by whatever serves /metrics.
 */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry });
}

/**
 * The process's metrics in Prometheus' text format; with `names`, only those families (a reader that
 * wants a few counters, such as the message budget, then runs no scrape-time query).
 */
export async function metricsText(names?: readonly string[]): Promise<string> {
  if (!names?.length) return registry.metrics();
  const parts: string[] = [];
  for (const name of names) if (registry.getSingleMetric(name)) parts.push(await registry.getSingleMetricAsString(name));
  return parts.length ? `${parts.join('\n')}\n` : '';
}

/** The `name` query parameters of a scrape (`/metrics?name=a&name=b`), or undefined for every family. */
export function requestedNames(query: unknown): string[] | undefined {
  const raw = (query as Record<string, unknown> | undefined)?.name;
  const names = (Array.isArray(raw) ? raw : [raw]).filter((n): n is string => typeof n === 'string' && METRIC_NAME.test(n));
  return names.length ? names : undefined;
}
