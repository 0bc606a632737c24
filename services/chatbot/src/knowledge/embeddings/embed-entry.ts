// Embedding an entry's chunks: every chunk of the entry without an embedding, or with another
// model's, is embedded and written back in one UPDATE per batch. Chunks are immutable (a changed
// entry gets new chunk rows), so a job that runs twice, or after the entry was deleted or rewritten,
// writes nothing wrong: it finds nothing left to embed, or the rows it embedded are gone.
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { EMBED_BATCH, type Embedder } from './embedder.ts';

export interface EmbedDeps {
  db: PrismaClient;
  embedder: Embedder;
}

/** Embeds what the entry still lacks; returns the number of chunks written (0 for a deleted entry). */
export async function embedEntry(deps: EmbedDeps, input: { chatbotId: string; entryId: string }): Promise<number> {
  const { db, embedder } = deps;
  const chunks = await db.$queryRawUnsafe<{ id: string; content: string }[]>(
    `SELECT "id"::text AS id, "content" FROM "KnowledgeChunk"
      WHERE "entryId" = $1::uuid AND "chatbotId" = $2::uuid
        AND ("embedding" IS NULL OR "embeddingModel" IS DISTINCT FROM $3)
      ORDER BY "position"`,
    input.entryId,
    input.chatbotId,
    embedder.model,
  );
  let written = 0;
  for (let i = 0; i < chunks.length; i += EMBED_BATCH) {
    const batch = chunks.slice(i, i + EMBED_BATCH);
    const vectors = await embedder.embed(batch.map((c) => c.content));
    written += await writeEmbeddings(
      db,
      embedder.model,
      batch.map((c) => c.id),
      vectors,
    );
  }
  return written;
}

/**
 * One UPDATE … FROM unnest for a batch. unnest would flatten an array of arrays, so the vectors go
 * as one flat real[] and each row takes its slice by ordinality.
 */
export async function writeEmbeddings(db: PrismaClient, model: string, ids: string[], vectors: number[][]): Promise<number> {
  if (ids.length === 0) return 0;
  const dims = vectors[0].length;
  if (vectors.some((v) => v.length !== dims)) throw new Error('the embeddings of one batch differ in length');
  return db.$executeRawUnsafe(
    `UPDATE "KnowledgeChunk" AS c
        SET "embedding" = ($2::real[])[(t.i - 1) * $3 + 1 : t.i * $3], "embeddingModel" = $4
       FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, i)
      WHERE c."id" = t.id`,
    ids,
    vectors.flat(),
    dims,
    model,
  );
}

/** Entries holding chunks not embedded with `model`, at most `limit` of them (the start-up sweep). */
export async function entriesToEmbed(db: PrismaClient, model: string, limit: number): Promise<{ chatbotId: string; entryId: string }[]> {
  return db.$queryRawUnsafe<{ chatbotId: string; entryId: string }[]>(
    `SELECT DISTINCT "chatbotId"::text AS "chatbotId", "entryId"::text AS "entryId" FROM "KnowledgeChunk"
      WHERE "embedding" IS NULL OR "embeddingModel" IS DISTINCT FROM $1
      LIMIT $2`,
    model,
    limit,
  );
}
