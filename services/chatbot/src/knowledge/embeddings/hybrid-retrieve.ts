// Hybrid retrieval: the full-text search and the vector search each rank their top N chunks, and
// reciprocal rank fusion merges the two lists (a chunk's score is the sum over lists of
// 1 / (RRF_K + rank)), so neither score scale has to be calibrated against the other. The question
// is embedded once per message; when the embeddings endpoint fails, the answer goes on with
// full-text search alone (logged at most once a minute), never failing the visitor (ADR 0015).
import type { Logger } from '@parley/common/logger.ts';
import { isUuid } from '@parley/common/ids.ts';
import { DEFAULT_K, MAX_K, type RetrievedChunk, type RetrieveChunks } from '../retrieve.ts';
import { QUERY_TIMEOUT_MS } from './embedder.ts';

/** The usual constant of reciprocal rank fusion (Cormack et al., 2009). */
export const RRF_K = 60;
/** Each list contributes at least this many candidates. */
export const MIN_CANDIDATES = 20;
/** Questions are cut as the full-text search cuts them. */
const MAX_QUERY_CHARS = 2000;
const WARN_EVERY_MS = 60_000;
/** After a failure the endpoint is left alone this long, so a hanging one does not add its timeout to every message. */
export const RETRY_VECTOR_AFTER_MS = 10_000;

/** The first k chunks of the lists fused by reciprocal rank; score = the fused score. */
export function fuseByRank(lists: RetrievedChunk[][], k: number): RetrievedChunk[] {
  const fused = new Map<string, RetrievedChunk>();
  for (const list of lists) {
    list.forEach((chunk, i) => {
      const add = 1 / (RRF_K + i + 1);
      const seen = fused.get(chunk.chunkId);
      if (seen) seen.score += add;
      else fused.set(chunk.chunkId, { ...chunk, score: add });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.chunkId < b.chunkId ? -1 : 1)).slice(0, k);
}

export interface HybridDeps {
  fullText: RetrieveChunks;
  embedQuery: (query: string, opts: { timeoutMs: number }) => Promise<number[]>;
  /** null: no vectors to search yet (see vector-index.ts); the answer goes on with full-text alone. */
  vectorSearch: (chatbotId: string, query: number[], n: number) => Promise<RetrievedChunk[] | null>;
  logger: Logger;
  now?: () => number;
}

export function hybridRetrieve(deps: HybridDeps): RetrieveChunks {
  const now = deps.now ?? Date.now;
  let lastWarned = -Infinity;
  let skipUntil = -Infinity;

  async function vectorTop(chatbotId: string, query: string, n: number): Promise<RetrievedChunk[] | null> {
    if (now() < skipUntil) return null;
    try {
      const vector = await deps.embedQuery(query.slice(0, MAX_QUERY_CHARS), { timeoutMs: QUERY_TIMEOUT_MS });
      return await deps.vectorSearch(chatbotId, vector, n);
    } catch (err) {
      skipUntil = now() + RETRY_VECTOR_AFTER_MS;
      if (now() - lastWarned >= WARN_EVERY_MS) {
        lastWarned = now();
        deps.logger.warn({ err: (err as Error).message }, 'vector search failed: full-text retrieval alone');
      }
      return null;
    }
  }

  return async (input) => {
    const k = input.k === 0 ? DEFAULT_K : input.k;
    const query = input.query.trim();
    // Bad input gets the full-text search's own errors, without a call to the endpoint.
    if (!isUuid(input.chatbotId) || !query || !Number.isInteger(k) || k < 1 || k > MAX_K) return deps.fullText(input);
    const chatbotId = input.chatbotId.trim().toLowerCase();
    const n = Math.max(k, MIN_CANDIDATES);
    const vector = vectorTop(chatbotId, query, n);
    const text = await deps.fullText({ chatbotId, query, k: n }).catch(async (err: unknown) => {
      await vector;
      throw err;
    });
    const near = await vector;
    return near ? fuseByRank([text, near], k) : text.slice(0, k);
  };
}
