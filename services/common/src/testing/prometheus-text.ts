// A strict reader of Prometheus' text exposition format (version 0.0.4), for tests: every line must be
// a HELP, a TYPE or a sample of a family declared before it, with well-formed names, labels and
// values; anything else throws, naming the line.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(?:,|$)/;
/** As Prometheus reads a value (Go's ParseFloat): a number, or Inf and NaN in any case (prom-client writes "Nan"). */
const VALUE = /^(?:[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)|[-+]?inf(?:inity)?|nan)$/i;
/** The series a histogram or summary family writes under names of its own. */
const SUFFIXES = ['_bucket', '_sum', '_count'];

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string): Family => {
    let f = families.get(name);
    if (!f) {
      f = { name, type: 'untyped', help: '', samples: [] };
      families.set(name, f);
    }
    return f;
  };
  const lines = text.split('\n');
  if (lines.pop() !== '') throw new Error('the exposition must end with a newline');
  for (const [i, line] of lines.entries()) {
    const where = `line ${i + 1} (${JSON.stringify(line)})`;
    let m: RegExpExecArray | null;
    if ((m = HELP.exec(line))) family(m[1]).help = m[2];
    else if ((m = TYPE.exec(line))) family(m[1]).type = m[2] as Family['type'];
    else if (line.startsWith('#') || line === '') continue;
    else if ((m = SAMPLE.exec(line))) {
      const [, name, labelText = '', value] = m;
      if (!VALUE.test(value)) throw new Error(`${where}: bad value`);
      const owner =
        families.get(name) ??
        [...families.values()].find((f) => (f.type === 'histogram' || f.type === 'summary') && SUFFIXES.some((s) => name === f.name + s));
      if (!owner) throw new Error(`${where}: a sample of no declared family`);
      const labels: Record<string, string> = {};
      let rest = labelText;
      while (rest) {
        const l = LABEL.exec(rest);
        if (!l) throw new Error(`${where}: bad labels`);
        if (l[1] in labels) throw new Error(`${where}: label ${l[1]} twice`);
        labels[l[1]] = l[2].replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
        rest = rest.slice(l[0].length);
      }
      owner.samples.push({
        name,
        labels,
        value: /nan/i.test(value) ? Number.NaN : /inf/i.test(value) ? (value.startsWith('-') ? -Infinity : Infinity) : Number(value),
      });
    } else throw new Error(`${where}: not a HELP, TYPE or sample line`);
  }
  return families;
}

/** The value of the one sample named `name` whose labels include `labels` (undefined if none). */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const f of families.values())
    for (const s of f.samples) if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
  return undefined;
}
