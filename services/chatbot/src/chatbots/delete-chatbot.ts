// Deleting a chatbot: its entries and chunks go with it (foreign keys cascade), then its picture
// file, then the ChatbotDeleted event for the services that keep data about it. The deletion is
// recorded in the outbox by the same statement, so the event is published later if it cannot be
// now (chatbot-deleted.outbox.ts).
import type { Logger } from '@parley/common/logger.ts';
import { notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { removePicture } from '../pictures/picture-files.ts';
import { CHATBOT_NOT_FOUND } from '../core/chatbot-input.ts';
import { announceChatbotDeleted, type PublishChatbotDeleted } from './chatbot-deleted.outbox.ts';
import { parseOwnedRef, type OwnedChatbotRef } from '../core/owned-chatbot.ts';

export interface DeleteChatbotDeps {
  db: PrismaClient;
  mediaDir: string;
  logger: Logger;
  /** Announces the deletion; called after the commit (and by the outbox's relay if it fails). */
  publishChatbotDeleted: PublishChatbotDeleted;
}

export async function deleteChatbot(deps: DeleteChatbotDeps, input: OwnedChatbotRef): Promise<void> {
  const { ownerId, chatbotId } = parseOwnedRef(input);
  // RETURNING reads the row as deleted, so a picture set concurrently is the one removed. The
  // outbox record commits with the deletion, or neither does.
  const [deleted] = await deps.db.$queryRaw<{ profilePicture: string | null; deletedAt: Date }[]>`
    WITH deleted AS (
      DELETE FROM "Chatbot" WHERE "id" = ${chatbotId}::uuid AND "ownerId" = ${ownerId} RETURNING "id", "ownerId", "profilePicture"
    ), recorded AS (
      INSERT INTO "ChatbotDeletedOutbox" ("chatbotId", "ownerId") SELECT "id", "ownerId" FROM deleted RETURNING "deletedAt"
    )
    SELECT deleted."profilePicture", recorded."deletedAt" FROM deleted, recorded`;
  if (!deleted) throw notFound(CHATBOT_NOT_FOUND);

  await removePicture(deps.mediaDir, deleted.profilePicture).catch((err: Error) =>
    deps.logger.warn({ err: err.message, chatbotId }, 'could not remove the deleted chatbot picture'),
  );
  try {
    await announceChatbotDeleted(deps.db, deps.publishChatbotDeleted, { id: chatbotId, ownerId, deletedAt: deleted.deletedAt });
  } catch (err) {
    // The chatbot is gone either way, and its record stays in the outbox for the relay.
    deps.logger.warn({ err: (err as Error).message, chatbotId }, 'could not publish ChatbotDeleted yet; the outbox relay will');
  }
  deps.logger.info({ chatbotId }, 'chatbot deleted');
}
