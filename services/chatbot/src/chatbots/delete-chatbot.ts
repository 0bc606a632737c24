// Deleting a chatbot: its entries and chunks go with it (foreign keys cascade), then its picture
// file, then the ChatbotDeleted event for the services that keep data about it.
import type { Logger } from '@parley/common/logger.ts';
import { notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { removePicture } from '../pictures/picture-files.ts';
import { CHATBOT_NOT_FOUND } from './chatbot-input.ts';
import { parseOwnedRef, type OwnedChatbotRef } from './owned-chatbot.ts';

export interface DeleteChatbotDeps {
  db: PrismaClient;
  mediaDir: string;
  logger: Logger;
  /** Announces the deletion; called after the commit. */
  publishChatbotDeleted: (chatbot: { id: string; ownerId: string }) => Promise<void>;
}

export async function deleteChatbot(deps: DeleteChatbotDeps, input: OwnedChatbotRef): Promise<void> {
  const { ownerId, chatbotId } = parseOwnedRef(input);
  // RETURNING reads the row as deleted, so a picture set concurrently is the one removed.
  const [deleted] = await deps.db.$queryRaw<{ profilePicture: string | null }[]>`
    DELETE FROM "Chatbot" WHERE "id" = ${chatbotId}::uuid AND "ownerId" = ${ownerId} RETURNING "profilePicture"`;
  if (!deleted) throw notFound(CHATBOT_NOT_FOUND);

  await removePicture(deps.mediaDir, deleted.profilePicture).catch((err: Error) =>
    deps.logger.warn({ err: err.message, chatbotId }, 'could not remove the deleted chatbot picture'),
  );
  try {
    await deps.publishChatbotDeleted({ id: chatbotId, ownerId });
  } catch (err) {
    // The chatbot is gone either way; consumers must tolerate a missing event by checking the chatbot.
    deps.logger.error({ err, chatbotId }, 'could not publish ChatbotDeleted');
  }
  deps.logger.info({ chatbotId }, 'chatbot deleted');
}
