// Vector search without pgvector (ADR 0015): a chatbot's chunk embeddings, read from PostgreSQL
// (real[], the store of record), are held in process as one normalised Float32Array matrix and
// searched exactly (cosine = dot product of unit vectors), a scan of every row per question.
//
// Each matrix is held in @parley/common/cache.ts under the chatbot row's version (updatedAt,
// knowledgeChars), which every knowledge change moves (the same token as the knowledge text cache),
// read before each search: one primary-key lookup. Embeddings arrive after the change that made
// the chunks, so a matrix loaded while some ready chunks still lacked an embedding is marked
// incomplete and loaded again once it is INCOMPLETE_RELOAD_MS old (longer for a slow load), in the
// background while it is still served. A search never waits long for a load (LOAD_WAIT_MS): until
// the matrix is held, the question is answered from full-text search alone. The chunks a search
// returns are read back by id, joined to their ready entries, so a chunk deleted since the load is
// never returned, and a missing one drops the matrix.
import { cache, type Cache } from '@parley/common/cache.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { RetrievedChunk } from '../retrieve.ts';

/** Memory for all matrices of one process (4 bytes a dimension): 100k chunks × 1536 dims would not fit (ADR 0015). */
export const MAX_VECTOR_BYTES = 512 * 1024 * 1024;
/** An incomplete matrix (embeddings still arriving) is read again after this long, or 20 × its load time. */
export const INCOMPLETE_RELOAD_MS = 5_000;
/** Entries whose chunks are read per statement while loading (by the entryId index). */
const LOAD_ENTRIES_PER_READ = 100;
/** A search waits this long for a matrix being loaded, then goes on without it (full-text alone) while it loads. */
export const LOAD_WAIT_MS = 250;
/** Held per chunk besides its vector: its id (a 36-character string) and the array slot. */
const ID_BYTES = 80;

export interface ChatbotVectors {
  /** Chunk ids, row by row. */
  ids: string[];
  dims: number;
  /** ids.length rows of `dims` unit-length values. */
  matrix: Float32Array;
  /** False when some ready chunk had no embedding of this model at load time. */
  complete: boolean;
  loadedAt: number;
  loadMs: number;
}

/** Reads every embedded chunk of the chatbot's ready entries into one matrix. */
export async function loadVectors(db: PrismaClient, chatbotId: string, model: string, now = Date.now): Promise<ChatbotVectors> {
  const started = now();
  const entries = await db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT "id"::text AS id FROM "KnowledgeEntry" WHERE "chatbotId" = $1::uuid AND "status" = 'ready'`,
    chatbotId,
  );
  const ids: string[] = [];
  const rows: Float32Array[] = [];
  let dims = 0;
  let complete = true;
  for (let i = 0; i < entries.length; i += LOAD_ENTRIES_PER_READ) {
    // array_send: the binary form of each real[], decoded far faster than its text; as base64, which
    // the driver hands over as a plain string (a bytea column measured 1.5–5× slower: ADR 0015).
    const batch = await db.$queryRawUnsafe<{ id: string; v: string | null }[]>(
      `SELECT "id"::text AS id, CASE WHEN "embeddingModel" = $2 THEN encode(array_send("embedding"), 'base64') END AS v
         FROM "KnowledgeChunk" WHERE "entryId" = ANY ($1::uuid[])`,
      entries.slice(i, i + LOAD_ENTRIES_PER_READ).map((e) => e.id),
      model,
    );
    for (const row of batch) {
      const [v] = row.v ? decodeRealArrays(Buffer.from(row.v, 'base64')) : [];
      if (!v || v.length === 0 || (dims && v.length !== dims)) {
        complete = false;
        continue;
      }
      dims = v.length;
      normalise(v);
      ids.push(row.id);
      rows.push(v);
    }
  }
  const matrix = new Float32Array(ids.length * dims);
  rows.forEach((v, i) => matrix.set(v, i * dims));
  const loadedAt = now();
  return { ids, dims, matrix, complete, loadedAt, loadMs: loadedAt - started };
}

/**
 * Concatenated PostgreSQL binary arrays (array_send) of one-dimensional real[] without nulls; an
 * array in another shape stops the decoding (the rest are not returned).
 */
export function decodeRealArrays(bytes: Uint8Array): Float32Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Float32Array[] = [];
  let at = 0;
  while (at + 12 <= bytes.byteLength) {
    const ndim = view.getInt32(at);
    if (ndim === 0) {
      out.push(new Float32Array(0));
      at += 12;
      continue;
    }
    if (ndim !== 1 || view.getInt32(at + 4) !== 0 || at + 20 > bytes.byteLength) break;
    const n = view.getInt32(at + 12);
    if (at + 20 + n * 8 > bytes.byteLength) break;
    const v = new Float32Array(n);
    at += 20;
    for (let i = 0; i < n; i++, at += 8) v[i] = view.getFloat32(at + 4);
    out.push(v);
  }
  return out;
}

export function normalise(v: Float32Array | number[]): void {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i] * v[i];
  if (norm === 0) return;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) v[i] *= scale;
}

/** The n rows nearest `query` (a unit vector of the same dimensions), best first. */
export function nearest(
  vectors: Pick<ChatbotVectors, 'dims' | 'matrix'>,
  query: Float32Array,
  n: number,
): { row: number; score: number }[] {
  const { dims, matrix } = vectors;
  const count = dims === 0 ? 0 : matrix.length / dims;
  // The best n so far, worst first (n ≤ 50, so an insertion into a sorted array beats a heap).
  const rows: number[] = [];
  const scores: number[] = [];
  for (let r = 0, base = 0; r < count; r++, base += dims) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let d = 0;
    for (; d + 4 <= dims; d += 4) {
      s0 += matrix[base + d] * query[d];
      s1 += matrix[base + d + 1] * query[d + 1];
      s2 += matrix[base + d + 2] * query[d + 2];
      s3 += matrix[base + d + 3] * query[d + 3];
    }
    for (; d < dims; d++) s0 += matrix[base + d] * query[d];
    const score = s0 + s1 + s2 + s3;
    if (rows.length === n && score <= scores[0]) continue;
    let at = 0;
    while (at < scores.length && scores[at] < score) at++;
    rows.splice(at, 0, r);
    scores.splice(at, 0, score);
    if (rows.length > n) {
      rows.shift();
      scores.shift();
    }
  }
  return rows.map((row, i) => ({ row, score: scores[i] })).reverse();
}

export interface VectorIndex {
  /**
   * The n chunks of the chatbot's ready entries nearest the query vector, best first (score:
   * cosine); null while the chatbot's matrix is being loaded (after loadWaitMs) or when it is too
   * large to hold: the caller goes on without vectors.
   */
  search(chatbotId: string, query: number[], n: number): Promise<RetrievedChunk[] | null>;
  /** Matrices held and their bytes (for tests and logs). */
  readonly held: { count: number; bytes: number };
}

export function vectorIndex(opts: {
  /** The main pool: loading reads many rows and must not run under the search sessions' settings. */
  db: PrismaClient;
  /** The search pool, for the per-search reads (see retrieve.ts). */
  search: PrismaClient;
  model: string;
  logger?: Logger;
  maxBytes?: number;
  /** How long a search waits for a matrix being loaded before going on without it. */
  loadWaitMs?: number;
  now?: () => number;
}): VectorIndex {
  const now = opts.now ?? Date.now;
  const maxBytes = opts.maxBytes ?? MAX_VECTOR_BYTES;
  const sizeOf = (v: ChatbotVectors) => v.matrix.byteLength + v.ids.length * ID_BYTES;
  const held: Cache<string, ChatbotVectors, string> = cache({ maxSize: maxBytes, sizeOf });
  // Chatbots whose matrix would not fit, under the version it was measured for: not loaded again until it changes.
  const tooLarge: Cache<string, true, string> = cache({ maxEntries: 10_000 });
  const loading = new Map<string, Promise<ChatbotVectors>>();

  function load(chatbotId: string, token: string): Promise<ChatbotVectors> {
    const inFlight = loading.get(chatbotId);
    if (inFlight) return inFlight;
    const promise = loadVectors(opts.db, chatbotId, opts.model, now)
      .then((vectors) => {
        if (sizeOf(vectors) > maxBytes) {
          tooLarge.set(chatbotId, token, true);
          opts.logger?.warn(
            { chatbotId, chunks: vectors.ids.length, bytes: sizeOf(vectors) },
            'embeddings too large to hold: full-text retrieval alone',
          );
        } else {
          held.set(chatbotId, token, vectors);
        }
        return vectors;
      })
      .finally(() => loading.delete(chatbotId));
    loading.set(chatbotId, promise);
    promise.catch(() => {}); // A search that stopped waiting has its answer already; the next one loads again.
    return promise;
  }

  async function vectorsOf(chatbotId: string): Promise<ChatbotVectors | null> {
    const [row] = await opts.search.$queryRawUnsafe<{ token: string }[]>(
      `SELECT (extract(epoch FROM "updatedAt") * 1000)::bigint::text || ':' || "knowledgeChars" AS token FROM "Chatbot" WHERE "id" = $1::uuid`,
      chatbotId,
    );
    if (!row || tooLarge.get(chatbotId, row.token)) return null;
    const current = held.get(chatbotId, row.token);
    if (current) {
      // Still served while its successor loads.
      if (!current.complete && now() - current.loadedAt >= Math.max(INCOMPLETE_RELOAD_MS, 20 * current.loadMs))
        void load(chatbotId, row.token);
      return current;
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<null>((resolve) => (timer = setTimeout(resolve, opts.loadWaitMs ?? LOAD_WAIT_MS, null)));
    try {
      return await Promise.race([load(chatbotId, row.token), waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async search(chatbotId, query, n) {
      const vectors = await vectorsOf(chatbotId);
      if (!vectors) return null;
      if (vectors.ids.length === 0 || query.length !== vectors.dims) return [];
      const q = Float32Array.from(query);
      normalise(q);
      const best = nearest(vectors, q, n);
      const ids = best.map((b) => vectors.ids[b.row]);
      const rows = await opts.search.$queryRawUnsafe<{ id: string; entry_id: string; content: string }[]>(
        `SELECT c."id"::text AS id, c."entryId"::text AS entry_id, c."content"
           FROM "KnowledgeChunk" AS c JOIN "KnowledgeEntry" AS e ON e."id" = c."entryId" AND e."status" = 'ready'
          WHERE c."id" = ANY ($1::uuid[]) AND c."chatbotId" = $2::uuid`,
        ids,
        chatbotId,
      );
      // A chunk gone since the load: this matrix is stale beyond what its token tells.
      if (rows.length < ids.length) held.delete(chatbotId);
      const byId = new Map(rows.map((r) => [r.id, r]));
      return best.flatMap((b, i) => {
        const r = byId.get(ids[i]);
        return r ? [{ chunkId: r.id, entryId: r.entry_id, content: r.content, score: b.score }] : [];
      });
    },
    get held() {
      return { count: held.size, bytes: held.totalSize };
    },
  };
}
