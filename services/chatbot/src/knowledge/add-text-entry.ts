// Adding text to a chatbot's knowledge base. The entry and all its chunks are written in one
// transaction before the call answers, so the text is searchable as soon as the owner sees it.
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { KnowledgeEntry, PrismaClient } from '../generated/prisma/client.ts';
import { CHATBOT_NOT_FOUND } from '../chatbots/chatbot-input.ts';
import { parseOwnedRef, type OwnedChatbotRef } from '../chatbots/owned-chatbot.ts';
import { chunkText } from './chunk-text.ts';
import { entryTitle } from './entry-title.ts';
import { insertChunks } from './index-chunks.ts';
import { searchConfigFor } from './search-text.ts';

export const TEXT_REQUIRED = 'Text is required';
export const entryTooLong = (max: number) => `Text entry is too long (maximum ${max.toLocaleString('en-US')} characters)`;
export const knowledgeBaseFull = (max: number) => `Knowledge base is full (maximum ${max.toLocaleString('en-US')} characters per chatbot)`;

export interface AddTextEntryDeps {
  db: PrismaClient;
  maxEntryChars: number;
  maxKnowledgeChars: number;
}

/** Characters as owners count them (code points), the same measure as Postgres's length(). */
export const charCount = (text: string) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

export async function addTextEntry(deps: AddTextEntryDeps, input: OwnedChatbotRef & { text: string }): Promise<KnowledgeEntry> {
  const { ownerId, chatbotId } = parseOwnedRef(input);
  const content = input.text.trim();
  if (!content) throw invalid(TEXT_REQUIRED);
  const chars = charCount(content);
  if (chars > deps.maxEntryChars) throw invalid(entryTooLong(deps.maxEntryChars));
  const chunks = chunkText(content);

  return deps.db.$transaction(async (tx) => {
    // FOR KEY SHARE: concurrent additions proceed side by side, while a language change (FOR
    // UPDATE) waits for them, and they for it, so every chunk is indexed with the current language.
    const [chatbot] = await tx.$queryRaw<{ language: string; knowledgeChars: number }[]>`
      SELECT "language", "knowledgeChars" FROM "Chatbot"
       WHERE "id" = ${chatbotId}::uuid AND "ownerId" = ${ownerId} FOR KEY SHARE`;
    if (!chatbot) throw notFound(CHATBOT_NOT_FOUND);
    if (chatbot.knowledgeChars + chars > deps.maxKnowledgeChars) throw invalid(knowledgeBaseFull(deps.maxKnowledgeChars));

    const entry = await tx.knowledgeEntry.create({ data: { chatbotId, title: entryTitle(content), content } });
    await insertChunks(tx, { entryId: entry.id, chatbotId, searchConfig: searchConfigFor(chatbot.language), chunks });
    // The total is re-checked atomically last: the row lock it takes is held only until the commit.
    const grown = await tx.$executeRaw`
      UPDATE "Chatbot" SET "knowledgeChars" = "knowledgeChars" + ${chars}, "updatedAt" = now()
       WHERE "id" = ${chatbotId}::uuid AND "knowledgeChars" + ${chars} <= ${deps.maxKnowledgeChars}`;
    if (grown !== 1) throw invalid(knowledgeBaseFull(deps.maxKnowledgeChars));
    return entry;
  });
}
