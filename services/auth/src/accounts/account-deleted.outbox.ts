// The AccountDeleted outbox: an account's deletion is recorded in the transaction that deletes it
// (delete-account.ts), and the record is removed only once the event is in every queue. The owner's
// call publishes at once; when that fails (Redis unreachable or slow), the relay below publishes
// again until it succeeds, so every service that holds the owner's data hears of it. A repeated
// publish is harmless: the job id is the account's, and the consumers' work is idempotent.
import type { Logger } from '@parley/common/logger.ts';
import { runPeriodically } from '@parley/common/periodic.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface DeletedAccount {
  userId: string;
  deletedAt: Date;
}

export type PublishAccountDeleted = (account: DeletedAccount) => Promise<void>;

/** How long the owner's call has to publish before the relay takes a record over. */
const RELAY_AFTER_MS = 30_000;
const RELAY_EVERY_MS = 30_000;
const BATCH = 100;

/** Publishes the event, then removes the record; a failure leaves the record for the relay. */
export async function announceAccountDeleted(db: PrismaClient, publish: PublishAccountDeleted, account: DeletedAccount): Promise<void> {
  await publish(account);
  await db.accountDeletedOutbox.deleteMany({ where: { userId: account.userId } });
}

/** Announces the deletions recorded before `olderThan` that are still waiting; returns how many were published. */
export async function relayAccountDeleted(db: PrismaClient, publish: PublishAccountDeleted, olderThan: Date): Promise<number> {
  const waiting = await db.accountDeletedOutbox.findMany({
    where: { deletedAt: { lt: olderThan } },
    orderBy: { deletedAt: 'asc' },
    take: BATCH,
  });
  let published = 0;
  for (const row of waiting) {
    await announceAccountDeleted(db, publish, { userId: row.userId, deletedAt: row.deletedAt });
    published++;
  }
  return published;
}

/** Relays waiting deletions now and then every RELAY_EVERY_MS until the returned function is called. */
export function startAccountDeletedRelay(db: PrismaClient, publish: PublishAccountDeleted, logger: Logger): () => void {
  let running = false;
  const relay = async () => {
    if (running) return;
    running = true;
    try {
      const published = await relayAccountDeleted(db, publish, new Date(Date.now() - RELAY_AFTER_MS));
      if (published > 0) logger.info({ published }, 'relayed AccountDeleted events');
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'relaying AccountDeleted events failed; retrying later');
    } finally {
      running = false;
    }
  };
  return runPeriodically(relay, { firstAfterMs: 5_000, everyMs: RELAY_EVERY_MS });
}
