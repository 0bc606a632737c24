// Adding text to a chatbot's knowledge base. The entry and all its chunks are written in one
// transaction before the call answers, so the text is searchable as soon as the owner sees it.
// Q&A pairs (add-qa-entry.ts) are written by the same statement: they too are ready at once.
import { createHash, randomUUID } from 'node:crypto';
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient, TextEntry } from '../generated/prisma/client.ts';
import { CHATBOT_NOT_FOUND } from '../core/chatbot-input.ts';
import { parseOwnedRef, type OwnedChatbotRef } from '../core/owned-chatbot.ts';
import { chunkText } from './chunk-text.ts';
import { entryTitle } from './entry-title.ts';
import { chunkColumns, searchVectorSql } from './index-chunks.ts';
import { SOURCE_TYPE } from './knowledge-base.ts';
import { searchConfigSql } from './search-text.ts';

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

/** The SHA-256 of an entry's content, so a re-fetched page tells whether it changed. */
export const contentHash = (content: string) => createHash('sha256').update(content).digest('hex');

export async function addTextEntry(deps: AddTextEntryDeps, input: OwnedChatbotRef & { text: string }): Promise<TextEntry> {
  const ref = parseOwnedRef(input);
  const content = input.text.trim();
  if (!content) throw invalid(TEXT_REQUIRED);
  if (charCount(content) > deps.maxEntryChars) throw invalid(entryTooLong(deps.maxEntryChars));
  return insertReadyEntry(deps, { ...ref, title: entryTitle(content), content, indexed: content, sourceType: SOURCE_TYPE.text });
}

export interface ReadyEntryInput extends OwnedChatbotRef {
  title: string;
  /** What is answered from and counted against the chatbot's knowledge characters. */
  content: string;
  /** What is chunked and searched (a Q&A pair's question and answer). */
  indexed: string;
  sourceType: string;
  question?: string;
}

/** Writes an entry that is ready at once, with its chunks, under the knowledge cap; a Q&A pair also counts in qaPairs. */
export async function insertReadyEntry(deps: AddTextEntryDeps, input: ReadyEntryInput): Promise<TextEntry> {
  const { ownerId, chatbotId, content } = input;
  const chars = charCount(content);
  const rows = chunkColumns(chunkText(input.indexed));
  const qaPairs = input.sourceType === SOURCE_TYPE.qa ? 1 : 0;

  return deps.db.$transaction(async (tx) => {
    // One statement, in this order:
    // 1. the chatbot, FOR KEY SHARE: concurrent additions proceed side by side, while a language
    //    change (FOR UPDATE) waits for them, and they for it, so every chunk is indexed with the
    //    current language; the entry is written only if it fits;
    // 2. the entry and its chunks, indexed under the chatbot's configuration;
    // 3. last, once every chunk is written, the total, re-checked atomically: the row lock it
    //    takes is held only until the commit.
    const [added] = await tx.$queryRawUnsafe<(Partial<TextEntry> & { grown: number })[]>(
      `WITH chatbot AS (
         SELECT "language", "knowledgeChars" FROM "Chatbot"
          WHERE "id" = $1::uuid AND "ownerId" = $2 FOR KEY SHARE
       ), entry AS (
         INSERT INTO "KnowledgeEntry" ("id", "chatbotId", "title", "content", "sourceType", "question", "contentHash")
         SELECT $3::uuid, $1::uuid, $4, $5, $13, $14, $15 FROM chatbot WHERE chatbot."knowledgeChars" + $6 <= $7
         RETURNING *
       ), chunks AS (
         INSERT INTO "KnowledgeChunk" ("id", "entryId", "chatbotId", "position", "content", "searchConfig", "searchVector")
         SELECT t.id, entry."id", $1::uuid, t.position, t.content, c.config, ${searchVectorSql('c.config', 't.latin', 't.cjk')}
           FROM entry,
                (SELECT ${searchConfigSql('"language"')} AS config FROM chatbot) AS c,
                unnest($8::uuid[], $9::int[], $10::text[], $11::text[], $12::text[]) AS t(id, position, content, latin, cjk)
         RETURNING 1
       ), grown AS (
         UPDATE "Chatbot" SET "knowledgeChars" = "knowledgeChars" + $6, "qaPairs" = "qaPairs" + $16, "updatedAt" = now()
          WHERE "id" = $1::uuid AND "knowledgeChars" + $6 <= $7 AND (SELECT count(*) FROM chunks) = cardinality($8::uuid[])
         RETURNING 1
       )
       SELECT entry.*, (SELECT count(*) FROM grown)::int AS grown FROM chatbot LEFT JOIN entry ON true`,
      chatbotId,
      ownerId,
      randomUUID(),
      input.title,
      content,
      chars,
      deps.maxKnowledgeChars,
      rows.ids,
      rows.positions,
      rows.contents,
      rows.latin,
      rows.cjk,
      input.sourceType,
      input.question ?? null,
      contentHash(content),
      qaPairs,
    );
    if (!added) throw notFound(CHATBOT_NOT_FOUND);
    if (!added.id || added.grown !== 1) throw invalid(knowledgeBaseFull(deps.maxKnowledgeChars));
    const { grown: _, ...entry } = added;
    return entry as TextEntry;
  });
}
