// Removing one entry (and its chunks and any upload waiting for its job, by cascade) from a
// chatbot's knowledge base. Only a ready entry was counted, so only a ready one is uncounted; a job
// still working on a deleted entry finds it gone and does nothing (ingest/write-entry.ts).
import { notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { isUuid } from '@parley/common/ids.ts';
import { findOwnedChatbot, type OwnedChatbotRef } from '../core/owned-chatbot.ts';

export const ENTRY_NOT_FOUND = 'Text entry not found';

/** Returns the chatbot's id, as stored. */
export async function deleteTextEntry(db: PrismaClient, input: OwnedChatbotRef & { entryId: string }): Promise<string> {
  const chatbot = await findOwnedChatbot(db, input);
  if (!isUuid(input.entryId)) throw notFound(ENTRY_NOT_FOUND);
  const entryId = input.entryId.trim().toLowerCase();
  await db.$transaction(async (tx) => {
    const [deleted] = await tx.$queryRaw<{ chars: number; qa: number }[]>`
      DELETE FROM "KnowledgeEntry" WHERE "id" = ${entryId}::uuid AND "chatbotId" = ${chatbot.id}::uuid
      RETURNING (CASE WHEN "status" = 'ready' THEN length("content") ELSE 0 END)::int AS chars,
                (CASE WHEN "status" = 'ready' AND "sourceType" = 'qa' THEN 1 ELSE 0 END)::int AS qa`;
    if (!deleted) throw notFound(ENTRY_NOT_FOUND);
    await tx.$executeRaw`
      UPDATE "Chatbot" SET "knowledgeChars" = GREATEST(0, "knowledgeChars" - ${deleted.chars}),
                           "qaPairs" = GREATEST(0, "qaPairs" - ${deleted.qa}), "updatedAt" = now()
       WHERE "id" = ${chatbot.id}::uuid`;
  });
  return chatbot.id;
}
