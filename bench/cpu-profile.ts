// Where a process's CPU went during a window: reads a V8 CPU profile (`node --cpu-prof`) and sums
// the self time of its samples taken between two instants (process.hrtime, which V8's profile
// timestamps share on Linux: CLOCK_MONOTONIC in microseconds), by function, by where the code comes
// from (a package, a part of Node, a file of this repository), by the nearest function of this
// repository on the stack (what in Parley's own code made the work happen), and by each function of
// this repository with all the work under it.
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSplit {
  /** Milliseconds of samples inside the window. */
  totalMs: number;
  byFunction: [string, number][];
  byOrigin: [string, number][];
  byOwnCaller: [string, number][];
  /** Each of this repository's functions with the time of every sample it was on the stack of (within one synchronous run: async continuations start new stacks). */
  byOwnInclusive: [string, number][];
}

/** V8's pseudo-frames: not code that ran, but the state the process was in. */
const PSEUDO = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** `root` is this repository's directory (ending in /): its files are named relative to it. */
export function profileSplit(file: string, root: string, window: { fromUs: number; toUs: number }): ProfileSplit {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const rel = (url: string) => url.replace(/^file:\/\//, '').replace(root, '');
  const own = (f: CallFrame) => f.url.includes(root) && !f.url.includes('/node_modules/');
  const label = (f: CallFrame) => {
    if (PSEUDO.has(f.functionName)) return f.functionName;
    const where = f.url ? `${rel(f.url)}:${f.lineNumber + 1}` : '(native)';
    return `${f.functionName || '(anonymous)'} ${where}`;
  };
  const origin = (f: CallFrame) => {
    if (PSEUDO.has(f.functionName)) return f.functionName;
    if (!f.url) return '(native)';
    const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f.url)?.[1];
    if (pkg) return pkg;
    if (f.url.startsWith('node:'))
      return f.url
        .replace(/^node:(internal\/)?/, 'node:')
        .split('/')
        .slice(0, 2)
        .join('/');
    return rel(f.url);
  };
  // The nearest of this repository's frames from the sample up; for work no such frame started (a
  // socket's data handled by a driver, a timer of a library), the outermost package frame instead:
  // the library whose callback it is.
  const ownCaller = new Map<number, string>();
  const nearestOwn = (id: number): string => {
    const known = ownCaller.get(id);
    if (known !== undefined) return known;
    const leaf = nodes.get(id)!.callFrame;
    let found = PSEUDO.has(leaf.functionName) ? leaf.functionName : '';
    let outermostPackage = '';
    let outermostNode = '';
    for (let at: number | undefined = id; !found && at !== undefined; at = parent.get(at)) {
      const f = nodes.get(at)!.callFrame;
      if (own(f)) found = label(f);
      else if (f.url.includes('/node_modules/')) outermostPackage = `${origin(f)} ${f.functionName || '(anonymous)'}`;
      else if (f.url.startsWith('node:')) outermostNode = `${f.functionName || '(anonymous)'} ${f.url}`;
    }
    found ||= `(no frame of this repository: ${outermostPackage ? `under ${outermostPackage}` : `Node, under ${outermostNode || 'native code'}`})`;
    ownCaller.set(id, found);
    return found;
  };

  const byFunction = new Map<string, number>();
  const byOrigin = new Map<string, number>();
  const byOwn = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const ownOnStack = new Map<number, string[]>();
  const ownFrames = (id: number): string[] => {
    const known = ownOnStack.get(id);
    if (known) return known;
    const f = nodes.get(id)!.callFrame;
    const above = parent.has(id) ? ownFrames(parent.get(id)!) : [];
    const frames = own(f) && !above.includes(label(f)) ? [...above, label(f)] : above;
    ownOnStack.set(id, frames);
    return frames;
  };
  let totalUs = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    // A sample stands for the time until the next one.
    const span = (profile.timeDeltas[i + 1] ?? 0) || 0;
    if (t < window.fromUs || t >= window.toUs) continue;
    const frame = nodes.get(profile.samples[i])!.callFrame;
    if (frame.functionName === '(idle)') continue;
    totalUs += span;
    const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + span);
    add(byFunction, label(frame));
    add(byOrigin, origin(frame));
    add(byOwn, nearestOwn(profile.samples[i]));
    for (const f of ownFrames(profile.samples[i])) add(inclusive, f);
  }
  const sorted = (m: Map<string, number>) => [...m].map(([k, us]): [string, number] => [k, us / 1000]).sort((a, b) => b[1] - a[1]);
  return {
    totalMs: totalUs / 1000,
    byFunction: sorted(byFunction),
    byOrigin: sorted(byOrigin),
    byOwnCaller: sorted(byOwn),
    byOwnInclusive: sorted(inclusive),
  };
}
