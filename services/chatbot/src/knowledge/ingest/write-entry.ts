// Where a background job's result lands: the entry's text, its chunks and the chatbot's knowledge
// characters, in one transaction. The entry row is locked (FOR UPDATE) and its status checked
// first, so a redelivered or concurrent job for the same entry waits, then finds the work done and
// changes nothing: characters are never counted twice. The chatbot row is held FOR KEY SHARE, as
// add-text-entry.ts does, so a language change waits for the chunks and they are indexed under the
// current language. Only ready entries have chunks, so retrieval never sees unfinished work.
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import { charCount, contentHash, knowledgeBaseFull } from '../add-text-entry.ts';
import { chunkText } from '../chunk-text.ts';
import { chunkColumns, searchVectorSql } from '../index-chunks.ts';
import { ENTRY_STATUS, SOURCE_TYPE } from '../knowledge-base.ts';
import { searchConfigFor } from '../search-text.ts';
import { FILE_ERRORS } from '../sources/source-error.ts';

type Tx = Prisma.TransactionClient;

/** Longest title kept; file names are cut to the same length. */
export const MAX_TITLE_CHARS = 200;

export interface WriteEntryDeps {
  db: PrismaClient;
  maxKnowledgeChars: number;
  maxDocumentChars: number;
}

export interface EntryText {
  entryId: string;
  title: string;
  text: string;
  /** A page's final address (after redirects). */
  sourceUrl?: string;
}

interface LockedEntry {
  chatbotId: string;
  status: string;
  sourceType: string;
  contentHash: string | null;
  chars: number;
  language: string;
}

/** Thrown inside a transaction to roll it back when the knowledge cap is reached after the chunks were written. */
class OverCap extends Error {}

export const cutTitle = (title: string) => [...title.trim()].slice(0, MAX_TITLE_CHARS).join('');

async function lockEntry(tx: Tx, entryId: string): Promise<LockedEntry | undefined> {
  const [entry] = await tx.$queryRaw<LockedEntry[]>`
    SELECT e."chatbotId"::text AS "chatbotId", e."status", e."sourceType", e."contentHash", length(e."content")::int AS chars, c."language"
      FROM "KnowledgeEntry" AS e JOIN "Chatbot" AS c ON c."id" = e."chatbotId"
     WHERE e."id" = ${entryId}::uuid
       FOR UPDATE OF e FOR KEY SHARE OF c`;
  return entry;
}

async function insertChunks(tx: Tx, entry: { chatbotId: string; language: string }, entryId: string, content: string): Promise<void> {
  const rows = chunkColumns(chunkText(content));
  await tx.$executeRawUnsafe(
    `INSERT INTO "KnowledgeChunk" ("id", "entryId", "chatbotId", "position", "content", "searchConfig", "searchVector")
     SELECT t.id, $1::uuid, $2::uuid, t.position, t.content, $3::text, ${searchVectorSql('$3::text', 't.latin', 't.cjk')}
       FROM unnest($4::uuid[], $5::int[], $6::text[], $7::text[], $8::text[]) AS t(id, position, content, latin, cjk)`,
    entryId,
    entry.chatbotId,
    searchConfigFor(entry.language),
    rows.ids,
    rows.positions,
    rows.contents,
    rows.latin,
    rows.cjk,
  );
}

/** Grows (or shrinks) the chatbot's knowledge characters when the result fits the cap; false when it does not. */
async function grow(tx: Tx, chatbotId: string, delta: number, max: number): Promise<boolean> {
  const grown = await tx.$executeRaw`
    UPDATE "Chatbot" SET "knowledgeChars" = "knowledgeChars" + ${delta}, "updatedAt" = now()
     WHERE "id" = ${chatbotId}::uuid AND (${delta}::int <= 0 OR "knowledgeChars" + ${delta}::int <= ${max})`;
  return grown === 1;
}

export type CompleteOutcome =
  | { outcome: 'ready'; chatbotId: string; newPages: { entryId: string; url: string }[] }
  | { outcome: 'failed'; chatbotId: string; error: string }
  | { outcome: 'skipped' };

/**
 * A processing entry (or a failed one tried again) becomes ready with its text, or failed when the
 * text is over a limit. `otherPages`, a crawl's finds, become new processing website entries of the
 * chatbot in the same transaction (addresses it already has are left out).
 */
export async function completeEntry(
  deps: WriteEntryDeps,
  input: EntryText & { otherPages?: string[]; from?: string[] },
): Promise<CompleteOutcome> {
  const content = input.text.trim();
  const chars = charCount(content);
  const from = input.from ?? [ENTRY_STATUS.processing];
  if (chars > deps.maxDocumentChars)
    return failEntry(deps.db, { entryId: input.entryId, error: FILE_ERRORS.tooLong(deps.maxDocumentChars), from });
  try {
    return await deps.db.$transaction(async (tx) => {
      const entry = await lockEntry(tx, input.entryId);
      if (!entry || !from.includes(entry.status)) return { outcome: 'skipped' } as const;
      await tx.$executeRaw`DELETE FROM "KnowledgeChunk" WHERE "entryId" = ${input.entryId}::uuid`;
      await insertChunks(tx, entry, input.entryId, content);
      const isUrl = entry.sourceType === SOURCE_TYPE.url;
      await tx.$executeRaw`
        UPDATE "KnowledgeEntry"
           SET "content" = ${content}, "title" = ${cutTitle(input.title)}, "status" = 'ready', "error" = NULL,
               "contentHash" = ${contentHash(content)}, "sourceUrl" = COALESCE(${input.sourceUrl ?? null}, "sourceUrl"),
               "lastSyncedAt" = CASE WHEN ${isUrl} THEN now() ELSE "lastSyncedAt" END, "updatedAt" = now()
         WHERE "id" = ${input.entryId}::uuid`;
      await tx.$executeRaw`DELETE FROM "KnowledgeUpload" WHERE "entryId" = ${input.entryId}::uuid`;
      // Last, so the chatbot row's lock is held for the shortest time.
      if (!(await grow(tx, entry.chatbotId, chars, deps.maxKnowledgeChars))) throw new OverCap();
      const newPages = input.otherPages?.length ? await addPages(tx, entry.chatbotId, input.otherPages) : [];
      return { outcome: 'ready', chatbotId: entry.chatbotId, newPages } as const;
    });
  } catch (err) {
    if (!(err instanceof OverCap)) throw err;
    return failEntry(deps.db, { entryId: input.entryId, error: knowledgeBaseFull(deps.maxKnowledgeChars), from });
  }
}

/** New processing website entries for the addresses the chatbot has no entry for yet. */
async function addPages(tx: Tx, chatbotId: string, urls: string[]): Promise<{ entryId: string; url: string }[]> {
  return tx.$queryRaw<{ entryId: string; url: string }[]>`
    INSERT INTO "KnowledgeEntry" ("id", "chatbotId", "title", "content", "sourceType", "sourceUrl", "status")
    SELECT gen_random_uuid(), ${chatbotId}::uuid, u.url, '', 'url', u.url, 'processing'
      FROM (SELECT DISTINCT url FROM unnest(${urls}::text[]) AS x(url)) AS u
     WHERE NOT EXISTS (SELECT 1 FROM "KnowledgeEntry" AS e WHERE e."chatbotId" = ${chatbotId}::uuid AND e."sourceUrl" = u.url)
    RETURNING "id"::text AS "entryId", "sourceUrl" AS url`;
}

/** A processing entry (or one in `from`) fails with the owner's message; its upload is no longer needed. */
export async function failEntry(db: PrismaClient, input: { entryId: string; error: string; from?: string[] }): Promise<CompleteOutcome> {
  const from = input.from ?? [ENTRY_STATUS.processing];
  const [failed] = await db.$queryRaw<{ chatbotId: string }[]>`
    UPDATE "KnowledgeEntry" SET "status" = 'failed', "error" = ${input.error}, "updatedAt" = now()
     WHERE "id" = ${input.entryId}::uuid AND "status" = ANY(${from}::text[])
    RETURNING "chatbotId"::text AS "chatbotId"`;
  await db.$executeRaw`DELETE FROM "KnowledgeUpload" WHERE "entryId" = ${input.entryId}::uuid`;
  return failed ? { outcome: 'failed', chatbotId: failed.chatbotId, error: input.error } : { outcome: 'skipped' };
}

export type RefreshOutcome =
  { outcome: 'changed' | 'unchanged'; chatbotId: string } | { outcome: 'kept'; chatbotId: string; error: string } | { outcome: 'skipped' };

/**
 * A ready website entry fetched again: unchanged text only records the fetch; changed text
 * replaces the content, the chunks and the entry's share of the knowledge characters at once. A
 * result over a limit keeps the old content, with the reason as the entry's error.
 */
export async function replaceEntryText(deps: WriteEntryDeps, input: EntryText): Promise<RefreshOutcome> {
  const content = input.text.trim();
  const chars = charCount(content);
  const hash = contentHash(content);
  const limitError = chars > deps.maxDocumentChars ? FILE_ERRORS.tooLong(deps.maxDocumentChars) : undefined;
  if (limitError) return keepEntryText(deps.db, { entryId: input.entryId, error: limitError });
  try {
    return await deps.db.$transaction(async (tx) => {
      const entry = await lockEntry(tx, input.entryId);
      if (!entry || entry.status !== ENTRY_STATUS.ready || entry.sourceType !== SOURCE_TYPE.url) return { outcome: 'skipped' } as const;
      if (entry.contentHash === hash) {
        await tx.$executeRaw`
          UPDATE "KnowledgeEntry" SET "lastSyncedAt" = now(), "lastSyncChanged" = false, "error" = NULL
           WHERE "id" = ${input.entryId}::uuid`;
        return { outcome: 'unchanged', chatbotId: entry.chatbotId } as const;
      }
      await tx.$executeRaw`DELETE FROM "KnowledgeChunk" WHERE "entryId" = ${input.entryId}::uuid`;
      await insertChunks(tx, entry, input.entryId, content);
      await tx.$executeRaw`
        UPDATE "KnowledgeEntry"
           SET "content" = ${content}, "title" = ${cutTitle(input.title)}, "error" = NULL, "contentHash" = ${hash},
               "sourceUrl" = COALESCE(${input.sourceUrl ?? null}, "sourceUrl"),
               "lastSyncedAt" = now(), "lastSyncChanged" = true, "updatedAt" = now()
         WHERE "id" = ${input.entryId}::uuid`;
      if (!(await grow(tx, entry.chatbotId, chars - entry.chars, deps.maxKnowledgeChars))) throw new OverCap();
      return { outcome: 'changed', chatbotId: entry.chatbotId } as const;
    });
  } catch (err) {
    if (!(err instanceof OverCap)) throw err;
    return keepEntryText(deps.db, { entryId: input.entryId, error: knowledgeBaseFull(deps.maxKnowledgeChars) });
  }
}

/** A failed re-fetch of a ready website entry: the old content stays, the reason is shown until the next success. */
export async function keepEntryText(db: PrismaClient, input: { entryId: string; error: string }): Promise<RefreshOutcome> {
  const [kept] = await db.$queryRaw<{ chatbotId: string }[]>`
    UPDATE "KnowledgeEntry" SET "error" = ${input.error}
     WHERE "id" = ${input.entryId}::uuid AND "status" = 'ready' AND "sourceType" = 'url'
    RETURNING "chatbotId"::text AS "chatbotId"`;
  return kept ? { outcome: 'kept', chatbotId: kept.chatbotId, error: input.error } : { outcome: 'skipped' };
}
