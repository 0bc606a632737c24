// The current calendar month in the browser's time zone, as the dashboard and the chatbot detail
// page bill it (docs/product.md, Usage: the current calendar month, first to last day).

/** The first day of `now`'s month, 00:00 local time. */
export function startOfMonth(now: Date): Date {
  return new Date(now.getFullYear(), now.getMonth(), 1);
}

/** The last instant of `now`'s month (its last day, 23:59:59.999 local time). */
export function endOfMonth(now: Date): Date {
  return new Date(new Date(now.getFullYear(), now.getMonth() + 1, 1).getTime() - 1);
}
