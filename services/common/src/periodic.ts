/**
 * Runs `task` once after `firstAfterMs`, then every `everyMs`, without keeping the process alive
 * for it; returns the function that stops it. For housekeeping a service does in the background.
 */
export function runPeriodically(task: () => unknown, opts: { firstAfterMs: number; everyMs: number }): () => void {
  const first = setTimeout(task, opts.firstAfterMs);
  const every = setInterval(task, opts.everyMs);
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
