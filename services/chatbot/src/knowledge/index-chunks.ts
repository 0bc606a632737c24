// Writing the full-text index. The tsvector is computed by Postgres from text prepared here
// (indexText): Latin words under the chatbot's configuration, CJK characters and bigrams under
// `simple`, concatenated into one vector so one GIN lookup serves mixed text.
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../generated/prisma/client.ts';
import { indexText } from './search-text.ts';

type Tx = Prisma.TransactionClient;

/** A chunk's vector, from its text as prepared by indexText; the arguments are SQL expressions. */
export function searchVectorSql(searchConfig: string, latin: string, cjk: string): string {
  return `to_tsvector(${searchConfig}::regconfig, ${latin}) || to_tsvector('simple'::regconfig, ${cjk})`;
}

/** An entry's chunk rows as parallel arrays for unnest(): new ids, positions from 0, texts, index texts. */
export function chunkColumns(chunks: string[]): { ids: string[]; positions: number[]; contents: string[]; latin: string[]; cjk: string[] } {
  const prepared = chunks.map(indexText);
  return {
    ids: chunks.map(() => randomUUID()),
    positions: chunks.map((_, i) => i),
    contents: chunks,
    latin: prepared.map((p) => p.latin),
    cjk: prepared.map((p) => p.cjk),
  };
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
              "searchVector" = ${searchVectorSql('$1::text', 't.latin', 't.cjk')}
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
