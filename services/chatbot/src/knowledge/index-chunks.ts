// Writing the full-text index. The tsvector is computed by Postgres from text prepared here
// (indexText): Latin words under the chatbot's configuration, CJK characters and bigrams under
// `simple`, concatenated into one vector so one GIN lookup serves mixed text.
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../generated/prisma/client.ts';
import { indexText } from './search-text.ts';

type Tx = Prisma.TransactionClient;

/** Inserts an entry's chunks, positions from 0, in one statement. */
export async function insertChunks(
  tx: Tx,
  input: { entryId: string; chatbotId: string; searchConfig: string; chunks: string[] },
): Promise<void> {
  if (input.chunks.length === 0) return;
  const prepared = input.chunks.map(indexText);
  await tx.$executeRawUnsafe(
    `INSERT INTO "KnowledgeChunk" ("id", "entryId", "chatbotId", "position", "content", "searchConfig", "searchVector")
     SELECT t.id, $1::uuid, $2::uuid, t.position, t.content, $3::text,
            to_tsvector($3::text::regconfig, t.latin) || to_tsvector('simple'::regconfig, t.cjk)
       FROM unnest($4::uuid[], $5::int[], $6::text[], $7::text[], $8::text[]) AS t(id, position, content, latin, cjk)`,
    input.entryId,
    input.chatbotId,
    input.searchConfig,
    input.chunks.map(() => randomUUID()),
    input.chunks.map((_, i) => i),
    input.chunks,
    prepared.map((p) => p.latin),
    prepared.map((p) => p.cjk),
  );
}

const REINDEX_BATCH = 500;

/** Rebuilds every chunk vector of a chatbot under a new configuration (after a language change). */
export async function reindexChatbot(tx: Tx, chatbotId: string, searchConfig: string): Promise<number> {
  let after = '00000000-0000-0000-0000-000000000000';
  let total = 0;
  for (;;) {
    const rows = await tx.$queryRaw<{ id: string; content: string }[]>`
      SELECT "id"::text AS id, "content" FROM "KnowledgeChunk"
       WHERE "chatbotId" = ${chatbotId}::uuid AND "id" > ${after}::uuid
       ORDER BY "id" LIMIT ${REINDEX_BATCH}`;
    if (rows.length === 0) return total;
    const prepared = rows.map((r) => indexText(r.content));
    await tx.$executeRawUnsafe(
      `UPDATE "KnowledgeChunk" AS c
          SET "searchConfig" = $1::text,
              "searchVector" = to_tsvector($1::text::regconfig, t.latin) || to_tsvector('simple'::regconfig, t.cjk)
         FROM unnest($2::uuid[], $3::text[], $4::text[]) AS t(id, latin, cjk)
        WHERE c."id" = t.id`,
      searchConfig,
      rows.map((r) => r.id),
      prepared.map((p) => p.latin),
      prepared.map((p) => p.cjk),
    );
    total += rows.length;
    after = rows[rows.length - 1].id;
  }
}
