// Counters of the work a process does, in Prometheus' text format (version 0.0.4): every service
// answers them at GET /metrics on its internal port (http.ts), for operators' scrapes and for the
// message budget (test/message-budget.test.ts). The kit counts at its own choke points: statements
// sent to PostgreSQL (database.ts), RPC calls served (http.ts), jobs published and processed
// (queues.ts).
//
// A counter only grows. Its labels name things the code knows in advance (a schema, an RPC method,
// a queue), never a visitor's input, so the series stay few. The registry is the process's: the
// services a test starts in one process share it, and their labels tell them apart.

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** One series of a counter: its labels bound once, so counting on a hot path builds nothing. */
export interface CounterSeries {
  inc(by?: number): void;
  readonly value: number;
}

export interface Counter<L extends string> {
  /** The series with these label values (created at 0 on first use). */
  series(labels: Record<L, string>): CounterSeries;
}

interface Family {
  help: string;
  labelNames: readonly string[];
  /** Keyed by the series' rendered label set, `{a="x",b="y"}` (or '' without labels). */
  series: Map<string, { value: number }>;
}

const families = new Map<string, Family>();

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * The process's counter `name` (`<namespace>_<what>_total`). Asking again for the same name returns
 * the same counter; asking with other help or labels is a programming error.
 */
export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name ${name}`);
  for (const label of labelNames) if (!LABEL_NAME.test(label) || label.startsWith('__')) throw new Error(`invalid label name ${label}`);
  let family = families.get(name);
  if (!family) {
    family = { help, labelNames: [...labelNames], series: new Map() };
    families.set(name, family);
  } else if (family.help !== help || family.labelNames.join() !== labelNames.join()) {
    throw new Error(`metric ${name} is already registered with other help or labels`);
  }
  const { series } = family;
  return {
    series(labels) {
      const key = labelNames.length ? `{${labelNames.map((l) => `${l}="${escapeLabelValue(labels[l])}"`).join(',')}}` : '';
      let cell = series.get(key);
      if (!cell) {
        cell = { value: 0 };
        series.set(key, cell);
      }
      const held = cell;
      return {
        inc(by = 1) {
          held.value += by;
        },
        get value() {
          return held.value;
        },
      };
    },
  };
}

/** Every counter of the process in Prometheus' text format, families and series in a stable order. */
export function metricsText(): string {
  const lines: string[] = [];
  for (const name of [...families.keys()].sort()) {
    const family = families.get(name)!;
    lines.push(`# HELP ${name} ${family.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${name} counter`);
    for (const key of [...family.series.keys()].sort()) lines.push(`${name}${key} ${family.series.get(key)!.value}`);
  }
  return `${lines.join('\n')}\n`;
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
