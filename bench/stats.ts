// What the benchmark scripts share: a seeded random stream (the same data and queries on every run),
// percentiles, how figures are printed, and a Ctrl+C that still cleans up.
import { loadavg } from 'node:os';

/** A small seeded generator of numbers in [0, 1): the same seed gives the same stream. */
export function mulberry32(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The p-th percentile (nearest rank) of values sorted ascending. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** p50, p95, p99 and max of unsorted samples. */
export function latencies(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
}

export const ms = (n: number) => n.toFixed(2);
export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
/** The machine's load averages (1, 5, 15 minutes). */
export const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
/** A target's verdict; at another BENCH_SCALE than 1 the figures do not answer the target. */
export const verdict = (scale: number, met: boolean) => (scale === 1 ? (met ? 'met' : 'NOT met') : 'not comparable at this scale');

/**
 * The first SIGINT/SIGTERM asks the run to stop: `check` throws at the script's next step, so its
 * cleanup runs, and `stopped` tells that error from a real one; a second signal quits at once.
 */
export function stopOnSignal(): { check: () => void; stopped: () => boolean } {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(130);
      stopping = true;
      console.log(`\n${signal}: stopping, then cleaning up (again to quit at once)`);
    });
  }
  return {
    check: () => {
      if (stopping) throw new Error('interrupted');
    },
    stopped: () => stopping,
  };
}
