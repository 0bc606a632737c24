// The ChatbotDeleted outbox: a chatbot's deletion is recorded in the same statement that deletes it
// (delete-chatbot.ts), and the record is removed only once the event is in the queue. The owner's
// call publishes at once; when that fails (Redis unreachable or slow), the relay below publishes
// again until it succeeds, so the services that keep data about the chatbot (the chat service's
// conversations) always hear of it. A repeated publish is harmless: the job id is the chatbot's,
// and the consumers' work is idempotent.
import type { Logger } from '@parley/common/logger.ts';
import { runPeriodically } from '@parley/common/periodic.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface DeletedChatbot {
  id: string;
  ownerId: string;
  deletedAt: Date;
}

export type PublishChatbotDeleted = (chatbot: DeletedChatbot) => Promise<void>;

/** How long the owner's call has to publish before the relay takes a record over. */
const RELAY_AFTER_MS = 30_000;
const RELAY_EVERY_MS = 30_000;
const BATCH = 100;

/** Publishes the event, then removes the record; a failure leaves the record for the relay. */
export async function announceChatbotDeleted(db: PrismaClient, publish: PublishChatbotDeleted, chatbot: DeletedChatbot): Promise<void> {
  await publish(chatbot);
  await db.chatbotDeletedOutbox.deleteMany({ where: { chatbotId: chatbot.id } });
}

/** Announces the deletions recorded before `olderThan` that are still waiting; returns how many were published. */
export async function relayChatbotDeleted(db: PrismaClient, publish: PublishChatbotDeleted, olderThan: Date): Promise<number> {
  const waiting = await db.chatbotDeletedOutbox.findMany({
    where: { deletedAt: { lt: olderThan } },
    orderBy: { deletedAt: 'asc' },
    take: BATCH,
  });
  let published = 0;
  for (const row of waiting) {
    await announceChatbotDeleted(db, publish, { id: row.chatbotId, ownerId: row.ownerId, deletedAt: row.deletedAt });
    published++;
  }
  return published;
}

/** Relays waiting deletions now and then every RELAY_EVERY_MS until the returned function is called. */
export function startChatbotDeletedRelay(db: PrismaClient, publish: PublishChatbotDeleted, logger: Logger): () => void {
  let running = false;
  const relay = async () => {
    if (running) return;
    running = true;
    try {
      const published = await relayChatbotDeleted(db, publish, new Date(Date.now() - RELAY_AFTER_MS));
      if (published > 0) logger.info({ published }, 'relayed ChatbotDeleted events');
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'relaying ChatbotDeleted events failed; retrying later');
    } finally {
      running = false;
    }
  };
  return runPeriodically(relay, { firstAfterMs: 5_000, everyMs: RELAY_EVERY_MS });
}
