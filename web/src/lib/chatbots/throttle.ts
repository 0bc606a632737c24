export interface Throttle {
  /**
   * Runs `task` now, or once `intervalMs` have passed since the last start. While a task runs, calls
   * are skipped; calls made during the waiting window share one delayed run. The promise settles
   * when the call has run or been skipped, and never rejects (the task handles its own errors).
   */
  run: (task: () => Promise<void>) => Promise<void>;
  /** Drops a delayed run (e.g. on sign-out); its callers' promises resolve. */
  cancel: () => void;
}

/** The list-refresh rule (docs/product.md, Chatbots): at most one fetch per `intervalMs`, none while one is running. */
export function createThrottle(intervalMs: number, now: () => number = Date.now): Throttle {
  let lastStart: number | null = null;
  let running: Promise<void> | null = null;
  let delayed: { timer: ReturnType<typeof setTimeout>; done: Promise<void>; resolve: () => void } | null = null;

  function start(task: () => Promise<void>): Promise<void> {
    lastStart = now();
    const current = task()
      .catch(() => undefined)
      .finally(() => {
        if (running === current) running = null;
      });
    running = current;
    return current;
  }

  function run(task: () => Promise<void>): Promise<void> {
    if (running) return running;
    if (delayed) return delayed.done;
    const wait = lastStart === null ? 0 : lastStart + intervalMs - now();
    if (wait <= 0) return start(task);

    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    const timer = setTimeout(() => {
      delayed = null;
      // A run that outlasted the window is still going: this one is skipped, as any call would be.
      (running ?? start(task)).then(resolve);
    }, wait);
    delayed = { timer, done, resolve };
    return done;
  }

  function cancel() {
    if (!delayed) return;
    clearTimeout(delayed.timer);
    delayed.resolve();
    delayed = null;
  }

  return { run, cancel };
}
