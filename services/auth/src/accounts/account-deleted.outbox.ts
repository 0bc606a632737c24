// The AccountDeleted outbox: an account's deletion is recorded in the transaction that deletes it
// (delete-account.ts), and the record is removed only once the event is in every queue. The owner's
// call publishes at once; when that fails (Redis unreachable or slow), the relay below publishes
// again until it succeeds, so every service that holds the owner's data hears of it. A repeated
// publish is harmless: the job id is the account's, and the consumers' work is idempotent.
import type { Logger } from '@parley/common/logger.ts';
import { relayOutbox, startOutboxRelay, type Outbox } from '@parley/common/outbox.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface DeletedAccount {
  userId: string;
  deletedAt: Date;
}

export type PublishAccountDeleted = (account: DeletedAccount) => Promise<void>;

/** Publishes the event, then removes the record; a failure leaves the record for the relay. */
export async function announceAccountDeleted(db: PrismaClient, publish: PublishAccountDeleted, record: DeletedAccount): Promise<void> {
  await publish(record);
  await db.accountDeletedOutbox.deleteMany({ where: { userId: record.userId } });
}

/** The outbox of the AccountDeleted events, for the kit's relay. */
export function accountDeletedOutbox(db: PrismaClient, publish: PublishAccountDeleted): Outbox<DeletedAccount> {
  return {
    event: 'AccountDeleted',
    waiting: async (olderThan, limit) =>
      (await db.accountDeletedOutbox.findMany({ where: { deletedAt: { lt: olderThan } }, orderBy: { deletedAt: 'asc' }, take: limit })).map(
        (row) => ({ userId: row.userId, deletedAt: row.deletedAt }),
      ),
    announce: (record) => announceAccountDeleted(db, publish, record),
  };
}

/** Announces the deletions recorded before `olderThan` that are still waiting; returns how many were published. */
export const relayAccountDeleted = (db: PrismaClient, publish: PublishAccountDeleted, olderThan: Date) =>
  relayOutbox(accountDeletedOutbox(db, publish), olderThan);

/** Relays waiting deletions in the background until the returned function is called. */
export const startAccountDeletedRelay = (db: PrismaClient, publish: PublishAccountDeleted, logger: Logger) =>
  startOutboxRelay(accountDeletedOutbox(db, publish), logger);
