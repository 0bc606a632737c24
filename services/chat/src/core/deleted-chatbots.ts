// Where a chatbot's deletion meets the writers of its analytics (the analytics batch, a visitor's
// rating). A deleted chatbot is recorded in DeletedChatbot before its figures are deleted, and a
// writer counts nothing for a chatbot recorded there. Reading that record is not enough on its own:
// a writer that read it just before the deletion was recorded, and committed just after the figures
// were deleted, would write them back. So both take the chatbot's lock (a transaction-level
// PostgreSQL advisory lock, one per chatbot): writers shared, in id order, before they read the
// record; the deletion exclusive, around recording it. A writer then either commits before the
// deletion is recorded (and its rows are deleted after it) or reads the record once it is committed.
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

type Tx = Prisma.TransactionClient;

/** The lock's key: the chatbot's id, namespaced because advisory locks are shared by the whole database. */
const lockKey = (chatbotId: string) => `parley.chatbot-analytics:${chatbotId.toLowerCase()}`;

/** Records the chatbot as deleted (idempotent), once no writer of its analytics is still in a transaction. */
export async function recordChatbotDeleted(db: PrismaClient, chatbotId: string): Promise<void> {
  await db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${lockKey(chatbotId)}, 0))`;
      await tx.deletedChatbot.createMany({ data: [{ chatbotId }], skipDuplicates: true });
    },
    // A writer holds the lock for one transaction at most (the analytics batch's is bounded at 20 s).
    { timeout: 30_000, maxWait: 30_000 },
  );
}

/**
 * In a writer's transaction, before it writes anything of these chatbots: takes their locks (shared,
 * held to the end of the transaction) and returns those of them that are deleted.
 */
export async function lockDeletedChatbots(tx: Tx, chatbotIds: readonly string[]): Promise<Set<string>> {
  const ids = [...new Set(chatbotIds.map((id) => id.toLowerCase()))].sort();
  // One by one in id order, as every writer takes them, so writers queued behind two deletions cannot deadlock.
  for (const id of ids) await tx.$executeRaw`SELECT pg_advisory_xact_lock_shared(hashtextextended(${lockKey(id)}, 0))`;
  const rows = await tx.$queryRaw<{ chatbotId: string }[]>`
    SELECT "chatbotId"::text AS "chatbotId" FROM "DeletedChatbot" WHERE "chatbotId" = ANY(${ids}::uuid[])`;
  return new Set(rows.map((r) => r.chatbotId));
}
