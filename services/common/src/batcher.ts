// Gathering what arrives at once into one flush: a queue consumer takes many jobs side by side and
// writes them in one transaction (one statement per batch, not per message), and a service that
// receives many calls at once for the same row answers them with one statement (group commit).
/**
 * Gathers items into batches for `flush`: a batch is flushed when it has `size` items or its first
 * item has waited `waitMs`, one flush at a time (items arriving during a flush wait for the next).
 * Each `add` settles with its batch's flush; when a batch fails, its items are flushed one by one.
 */
export function batcher<T>(flush: (items: T[]) => Promise<unknown>, opts: { size: number; waitMs: number }) {
  let pending: { item: T; settle: (failure?: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();

  const flushNow = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    flushing = flushing.then(async () => {
      try {
        await flush(batch.map((p) => p.item));
        batch.forEach((p) => p.settle());
      } catch (err) {
        // One bad item must not fail the others with it: alone, each settles by its own outcome.
        if (batch.length === 1) return batch[0].settle(err ?? new Error('batch failed'));
        for (const p of batch) {
          await flush([p.item]).then(
            () => p.settle(),
            (failure: unknown) => p.settle(failure ?? new Error('batch failed')),
          );
        }
      }
    });
  };

  return {
    add(item: T): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        pending.push({ item, settle: (failure) => (failure === undefined ? resolve() : reject(failure)) });
        if (pending.length >= opts.size) flushNow();
        else timer ??= setTimeout(flushNow, opts.waitMs);
      });
    },
  };
}

/**
 * Group commit: calls that arrive while a flush is running wait for it, then go together in the next
 * flush (up to `max` items), so N calls at once on one row cost a few statements, not N queued on
 * the row's lock. An idle call is flushed at once (after the current turn of the event loop, which
 * gathers calls made in the same turn): one caller alone waits for nothing. `flush` answers each
 * item in order; when a whole flush fails (a deadlock, a lost connection), its items are flushed one
 * by one, so each settles by its own outcome.
 */
export function groupCommit<T, R>(flush: (items: T[]) => Promise<R[]>, opts: { max: number }) {
  let pending: { item: T; resolve: (result: R) => void; reject: (err: unknown) => void }[] = [];
  let running = false;

  const run = async () => {
    while (pending.length > 0) {
      const batch = pending.slice(0, opts.max);
      pending = pending.slice(opts.max);
      try {
        const results = await flush(batch.map((p) => p.item));
        batch.forEach((p, i) => p.resolve(results[i]));
      } catch (err) {
        if (batch.length === 1) batch[0].reject(err);
        else
          for (const p of batch) {
            await flush([p.item]).then(
              ([result]) => p.resolve(result),
              (failure: unknown) => p.reject(failure),
            );
          }
      }
    }
    running = false;
  };

  return {
    add(item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        pending.push({ item, resolve, reject });
        if (running) return;
        running = true;
        setImmediate(() => void run());
      });
    },
  };
}
