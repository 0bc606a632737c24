// Gives back, once a burst of work is over, the memory it left behind (docs/adr/0020-process-memory.md).
// Under load V8 grows the young generation to its maximum (2 × 8 MB with PROCESS_MEMORY) and keeps
// the old generation's free pages, and nothing shrinks them again until V8's own memory reducer runs,
// 8 s and more after the last collection and only once allocation has been low for that long. A
// process at rest therefore kept ≈ 20–25 MB it no longer used. Here, when the process has been quiet
// for QUIET_TICKS checks in a row after its memory grew, one collection that reduces the footprint
// runs (V8's "last resort" one: a full collection with compaction, the young generation shrunk to its
// minimum, freed and pooled pages unmapped). It costs ≈ 80–130 ms of CPU, so it runs only when the
// V8 heap (committed) or the resident set has grown by GROWTH_BYTES since the last one, and never more
// often than COST_SHARE of the time allows. The resident set counts too: a process whose heap grew by
// less than GROWTH_BYTES in a burst (auth after a sign-up and its queue jobs: 3 MB) still held pages
// such a collection gives back, the young generation's and V8's pool of free pages
// (docs/adr/0068-memory-at-rest.md).
import type { Logger } from './logger.ts';

/** V8's gc() of `--expose-gc`, with the options of V8 11 and later. */
export type ExposedGc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface RestMemoryOptions {
  gc: ExposedGc;
  logger?: Logger;
  /** How often the process checks whether it is quiet. */
  checkEveryMs?: number;
  /** A check is quiet when the process used less CPU than this share of the interval. */
  quietCpuShare?: number;
  /** Quiet checks in a row before collecting. */
  quietTicks?: number;
  /** How much the V8 heap (committed) or the resident set must have grown since the last collection. */
  growthBytes?: number;
  /** At most this share of wall time spent in these collections (a collection of c ms waits c / share). */
  costShare?: number;
  /** Read the committed heap size (tests). */
  heapBytes?: () => number;
  /** Read the resident set size (tests). */
  rssBytes?: () => number;
  /** The process's CPU time so far, in ms (tests). */
  cpuMs?: () => number;
  /** A monotonic clock, in ms (tests). */
  nowMs?: () => number;
}

const CHECK_EVERY_MS = 250;
const QUIET_CPU_SHARE = 0.02;
const QUIET_TICKS = 2;
const GROWTH_BYTES = 4 * 1024 * 1024;
const COST_SHARE = 0.05;

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Starts the checks (an unref'd timer: it never keeps the process alive); returns what stops them.
 * Without `gc` (a process started without PROCESS_MEMORY's `--expose-gc`) it does nothing.
 */
export function collectAtRest(opts: Partial<RestMemoryOptions> = {}): () => void {
  const check = restMemoryCheck(opts);
  if (!check) return () => {};
  const timer = setInterval(check, opts.checkEveryMs ?? CHECK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * One check, run every `checkEveryMs`: counts the quiet checks in a row and collects when there are
 * enough, the heap grew since the last collection and the last one's cost has been waited out. Null
 * without `gc`. Its clocks and heap are options, so tests drive it check by check.
 */
export function restMemoryCheck(opts: Partial<RestMemoryOptions> = {}): (() => void) | null {
  const gc = opts.gc;
  if (!gc) return null;
  const checkEveryMs = opts.checkEveryMs ?? CHECK_EVERY_MS;
  const quietCpuMs = checkEveryMs * (opts.quietCpuShare ?? QUIET_CPU_SHARE);
  const quietTicks = opts.quietTicks ?? QUIET_TICKS;
  const growthBytes = opts.growthBytes ?? GROWTH_BYTES;
  const costShare = opts.costShare ?? COST_SHARE;
  const heapBytes = opts.heapBytes ?? (() => process.memoryUsage().heapTotal);
  const rssBytes = opts.rssBytes ?? (() => process.memoryUsage.rss());
  const cpu = opts.cpuMs ?? cpuMs;
  const nowMs = opts.nowMs ?? (() => performance.now());

  let lastCpu = cpu();
  let quiet = 0;
  // The heap and the resident set right after the last collection; the first one measures from the start.
  let baseline = 0;
  let rssBaseline = 0;
  let notBefore = 0;
  return () => {
    const now = cpu();
    const used = now - lastCpu;
    lastCpu = now;
    quiet = used < quietCpuMs ? quiet + 1 : 0;
    if (quiet < quietTicks || nowMs() < notBefore) return;
    const heap = heapBytes();
    if (heap - baseline < growthBytes && rssBytes() - rssBaseline < growthBytes) return;
    const started = nowMs();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const after = cpu();
    const cost = after - now;
    lastCpu = after;
    quiet = 0;
    baseline = heapBytes();
    rssBaseline = rssBytes();
    notBefore = nowMs() + cost / costShare;
    opts.logger?.debug(
      { heapBefore: heap, heapAfter: baseline, cpuMs: Math.round(cost), ms: Math.round(nowMs() - started) },
      'memory given back at rest',
    );
  };
}

/** The gc() that `--expose-gc` put on the global object (V8 makes it non-deletable). */
export function exposedGc(): ExposedGc | undefined {
  return (globalThis as { gc?: ExposedGc }).gc;
}
