// The relay half of an outbox (ADR 9, ADR 13): a service records an event in the same transaction
// as the change it announces, the caller publishes it at once and removes the record, and this
// relay publishes the records that are still waiting after a grace period (Redis was unreachable or
// slow), oldest first, until each is in its queue. Publishing twice is harmless: job ids are the
// subject's and consumers are idempotent. The table and the event stay the service's own.
import type { Logger } from './logger.ts';
import { runPeriodically } from './periodic.ts';

/** How long the owner's call has to publish before the relay takes a record over, and how often it looks. */
export const RELAY_AFTER_MS = 30_000;
export const RELAY_EVERY_MS = 30_000;
export const RELAY_BATCH = 100;
/**
 * Most records one pass publishes, page after page of RELAY_BATCH while pages come back full: a
 * backlog left by a long outage drains within a few passes, not RELAY_BATCH records per pass.
 */
export const RELAY_PASS_LIMIT = 10_000;

export interface Outbox<R> {
  /** The event's name, for logs. */
  event: string;
  /** Up to `limit` records written before `olderThan`, oldest first. */
  waiting(olderThan: Date, limit: number): Promise<R[]>;
  /** Publishes one record's event, then removes the record (a failure leaves it). */
  announce(record: R): Promise<void>;
}

/**
 * Announces the records written before `olderThan` that are still waiting, a page at a time (at most
 * RELAY_PASS_LIMIT); returns how many were published.
 */
export async function relayOutbox<R>(outbox: Outbox<R>, olderThan: Date): Promise<number> {
  let published = 0;
  for (;;) {
    const page = await outbox.waiting(olderThan, RELAY_BATCH);
    for (const record of page) {
      await outbox.announce(record);
      published++;
    }
    if (page.length < RELAY_BATCH || published >= RELAY_PASS_LIMIT) return published;
  }
}

/** Relays waiting records now and then every RELAY_EVERY_MS (one pass at a time) until the returned function is called. */
export function startOutboxRelay<R>(outbox: Outbox<R>, logger: Logger): () => void {
  let running = false;
  const relay = async () => {
    if (running) return;
    running = true;
    try {
      const published = await relayOutbox(outbox, new Date(Date.now() - RELAY_AFTER_MS));
      if (published > 0) logger.info({ published, event: outbox.event }, 'relayed waiting events');
    } catch (err) {
      logger.warn({ err: (err as Error).message, event: outbox.event }, 'relaying waiting events failed; retrying later');
    } finally {
      running = false;
    }
  };
  return runPeriodically(relay, { firstAfterMs: 5_000, everyMs: RELAY_EVERY_MS });
}
