// Renaming, (de)activating, changing a chatbot's language and its voice. A new language re-indexes the
// chatbot's chunks with its text-search configuration in the same transaction, so searches never
// mix stemmings. The row lock (FOR UPDATE) waits for knowledge being added (which holds FOR KEY
// SHARE) and holds new additions back until the re-index is committed.
import { notFound } from '@parley/common/rpc-errors.ts';
import type { Chatbot, PrismaClient } from '../generated/prisma/client.ts';
import { reindexChatbot } from '../knowledge/index-chunks.ts';
import { searchConfigFor } from '../knowledge/search-text.ts';
import { CHATBOT_NOT_FOUND, parseLanguage, parseName, parseVoiceChange, type VoiceChangeInput } from './chatbot-input.ts';
import { parseOwnedRef, type OwnedChatbotRef } from './owned-chatbot.ts';

export interface UpdateChatbotInput extends OwnedChatbotRef {
  name?: string;
  isActive?: boolean;
  language?: string;
  voice?: VoiceChangeInput;
}

/** Generous: re-indexing a full knowledge base (5M characters) takes seconds, not minutes. */
const REINDEX_TIMEOUT_MS = 120_000;

export async function updateChatbot(db: PrismaClient, input: UpdateChatbotInput): Promise<Chatbot> {
  const { ownerId, chatbotId } = parseOwnedRef(input);
  const name = input.name === undefined ? undefined : parseName(input.name);
  const language = input.language === undefined ? undefined : parseLanguage(input.language);
  const voice = parseVoiceChange(input.voice);

  return db.$transaction(
    async (tx) => {
      const [current] = await tx.$queryRaw<{ language: string }[]>`
        SELECT "language" FROM "Chatbot" WHERE "id" = ${chatbotId}::uuid AND "ownerId" = ${ownerId} FOR UPDATE`;
      if (!current) throw notFound(CHATBOT_NOT_FOUND);
      const chatbot = await tx.chatbot.update({
        where: { id: chatbotId },
        data: { name, isActive: input.isActive, language, ...voice },
      });
      if (language && searchConfigFor(language) !== searchConfigFor(current.language)) {
        await reindexChatbot(tx, chatbotId, searchConfigFor(language));
      }
      return chatbot;
    },
    { timeout: REINDEX_TIMEOUT_MS },
  );
}
