// Removing one text entry (and its chunks, by cascade) from a chatbot's knowledge base.
import { notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { isUuid } from '../chatbots/chatbot-input.ts';
import { findOwnedChatbot, type OwnedChatbotRef } from '../chatbots/owned-chatbot.ts';

export const ENTRY_NOT_FOUND = 'Text entry not found';

/** Returns the chatbot's id, as stored. */
export async function deleteTextEntry(db: PrismaClient, input: OwnedChatbotRef & { entryId: string }): Promise<string> {
  const chatbot = await findOwnedChatbot(db, input);
  if (!isUuid(input.entryId)) throw notFound(ENTRY_NOT_FOUND);
  const entryId = input.entryId.trim().toLowerCase();
  await db.$transaction(async (tx) => {
    const [deleted] = await tx.$queryRaw<{ chars: number }[]>`
      DELETE FROM "KnowledgeEntry" WHERE "id" = ${entryId}::uuid AND "chatbotId" = ${chatbot.id}::uuid
      RETURNING length("content") AS chars`;
    if (!deleted) throw notFound(ENTRY_NOT_FOUND);
    await tx.$executeRaw`
      UPDATE "Chatbot" SET "knowledgeChars" = GREATEST(0, "knowledgeChars" - ${deleted.chars}), "updatedAt" = now()
       WHERE "id" = ${chatbot.id}::uuid`;
  });
  return chatbot.id;
}
