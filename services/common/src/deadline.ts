// A promise that gives up waiting: for calls to clients that queue work while disconnected (the
// Redis client does), so a caller is never kept waiting on them forever. The work itself is not
// cancelled; only the wait ends.

/** `work`, or a rejection with `message` once `ms` have passed without it settling. */
export async function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
