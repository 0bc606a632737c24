// Retrieval: the chunks of one chatbot that best match a visitor's question, for the chat service's
// prompt. A question matches term by term (OR), so natural questions find passages that share only
// some of their words; chunks matching more distinct terms rank first, then by cover density
// (ts_rank_cd).
//
// Ranking every chunk that shares one common word with the question would read much of a large
// knowledge base, so the search goes down by levels inside the GIN index: first the chunks holding
// all n terms, then at least n-1, … down to at least one. Each level reads at most
// CANDIDATES_PER_LEVEL rows, and a level runs only while the levels above found fewer than k chunks
// (a one-time filter in the plan, so a skipped level costs nothing). Chunks matching more terms are
// therefore never missed; only ties at the last level are a sample. "At least j of n" is a
// threshold expression over the terms (see atLeast), for which GIN enumerates only the n-j+1
// rarest terms' postings.
import { cache } from '@parley/common/cache.ts';
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { CHATBOT_NOT_FOUND } from '../core/chatbot-input.ts';
import { isUuid } from '@parley/common/ids.ts';
import { queryText, searchConfigSql } from './search-text.ts';

export const QUERY_REQUIRED = 'Query is required';
export const K_OUT_OF_RANGE = 'k must be between 1 and 50';
export const DEFAULT_K = 5;
export const MAX_K = 50;
/** Longer questions are cut: their first terms are plenty to find passages. */
const MAX_QUERY_CHARS = 2000;
/** Terms used per question (in question order); 8 keeps the largest level at 48 operands (4 of 8, see atLeast). */
export const MAX_TERMS = 8;
/** Rows read per level; at least 2 × MAX_K so the last level still leaves a choice. */
export const CANDIDATES_PER_LEVEL = 100;
/**
 * The settings of every session that runs the search (the chatbot service's search pool; see
 * searchSql for why): the levels must always come from the GIN index (the planner may prefer a
 * sequential scan for a level it expects to match many rows, and then read the whole table when
 * the match is rare); JIT compilation, triggered by those same estimates, costs more than the whole
 * search, and so do parallel workers, which would also hand a level's rows over in no set order; a
 * small work_mem lets the bitmap of a level matching much of the knowledge base (beyond ~900 heap
 * pages) turn lossy (whole pages, rechecked on the few pages read before the level's limit) instead
 * of listing every row. Set on the pool's sessions, so each search is one statement: no
 * transaction to set them around it.
 */
export const SEARCH_SESSION_SETTINGS = {
  enable_seqscan: 'off',
  jit: 'off',
  max_parallel_workers_per_gather: '0',
  work_mem: '64kB',
} as const;
/** A term in at least this share of all chunks (the planner's statistics) is checked on the rows read, not in the index. */
const DENSE_TERM_SHARE = 0.5;
/** How long the statistics are reused before they are read again. */
const TERM_STATS_TTL_MS = 10 * 60_000;

export interface RetrievedChunk {
  chunkId: string;
  entryId: string;
  content: string;
  /** Distinct query terms the chunk holds, plus its cover density scaled into [0, 1). */
  score: number;
}

/** A retrieval: full-text (retrieve below) or hybrid (embeddings/hybrid-retrieve.ts). */
export type RetrieveChunks = (input: { chatbotId: string; query: string; k: number }) => Promise<RetrievedChunk[]>;

/** `db` must be a client whose sessions have SEARCH_SESSION_SETTINGS (the chatbot service's search pool). */
export async function retrieve(db: PrismaClient, input: { chatbotId: string; query: string; k: number }): Promise<RetrievedChunk[]> {
  if (!isUuid(input.chatbotId)) throw notFound(CHATBOT_NOT_FOUND);
  const chatbotId = input.chatbotId.trim().toLowerCase();
  const query = input.query.trim().slice(0, MAX_QUERY_CHARS);
  if (!query) throw invalid(QUERY_REQUIRED);
  const k = input.k === 0 ? DEFAULT_K : input.k;
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw invalid(K_OUT_OF_RANGE);

  const { latin, grams } = queryText(query);
  // The question's Latin words normalised exactly as the chunks were (the chatbot's configuration:
  // stemming, stop words), in question order.
  const [chatbot] = await db.$queryRawUnsafe<{ lexemes: string[] }[]>(
    `SELECT ARRAY(
              SELECT lexeme FROM unnest(to_tsvector(${searchConfigSql('c."language"')}::regconfig, $2::text)) ORDER BY positions[1]
            ) AS lexemes
       FROM "Chatbot" AS c WHERE c."id" = $1::uuid`,
    chatbotId,
    latin,
  );
  if (!chatbot) throw notFound(CHATBOT_NOT_FOUND);
  const lexemes = [...new Set([...chatbot.lexemes, ...grams])].slice(0, MAX_TERMS);
  if (lexemes.length === 0) return []; // only stop words
  const dense = await denseTerms(db);

  const { sql, params } = searchSql(
    chatbotId,
    k,
    lexemes.map(tsqueryTerm),
    lexemes.map((l) => dense.has(l)),
  );
  const rows = await db.$queryRawUnsafe<{ chunk_id: string; entry_id: string; content: string; score: number }[]>(sql, ...params);
  return rows.map((r) => ({ chunkId: r.chunk_id, entryId: r.entry_id, content: r.content, score: Number(r.score) }));
}

/**
 * The search statement: one gated CTE per level, then the ranking of the candidates. The levels
 * keep only row addresses (ctid), so the deduplication and the gates handle a few bytes per row;
 * the candidates are then read once, by address, to be scored.
 *
 * `dense` marks the terms found in much of the table. GIN pays for every term of a level on every
 * candidate, and a dense term's long posting list costs the most while ruling out the fewest
 * rows; a chunk holding j of the n terms holds at least j - d of the n - d others, so a level
 * with j > d is looked up in the index by those others alone and checked in full on the rows
 * read (ts_match_vq is @@ out of the index's reach). The rows, and their order, are the same.
 */
export function searchSql(chatbotId: string, k: number, terms: string[], dense: boolean[] = []): { sql: string; params: unknown[] } {
  const levels = terms.map((_, i) => atLeast(terms, terms.length - i)); // n, n-1, …, 1
  const sparse = terms.filter((_, i) => !dense[i]);
  const d = terms.length - sparse.length;
  const params: unknown[] = [chatbotId, k, terms, levels[levels.length - 1]];
  const param = (value: unknown) => `$${params.push(value)}::tsquery`;
  const ctes = levels.flatMap((tsquery, i) => {
    const j = terms.length - i;
    const match =
      d > 0 && j > d
        ? `"searchVector" @@ ${param(atLeast(sparse, j - d))} AND ts_match_vq("searchVector", ${param(tsquery)})`
        : `"searchVector" @@ ${param(tsquery)}`;
    // Level i runs while every level above found fewer than k chunks. The level just above holds
    // all the chunks of the levels above it whenever it found fewer than CANDIDATES_PER_LEVEL
    // (≥ k), so its count stands for theirs: g<i> carries the gate down, one row per level.
    const gate =
      i === 0 ? [] : [`g${i} AS (SELECT ${i > 1 ? `(SELECT open FROM g${i - 1}) AND ` : ''}(SELECT count(*) FROM l${i - 1}) < $2 AS open)`];
    return [
      ...gate,
      `l${i} AS (
      SELECT ctid AS t FROM "KnowledgeChunk"
       WHERE ${i > 0 ? `(SELECT open FROM g${i}) AND ` : ''}"chatbotId" = $1::uuid AND ${match}
       LIMIT ${CANDIDATES_PER_LEVEL})`,
    ];
  });
  const sql = `WITH ${ctes.join(',\n')}
     SELECT c."id"::text AS chunk_id, c."entryId"::text AS entry_id, c."content" AS content,
            ((SELECT count(*) FROM unnest($3::tsquery[]) AS t(q) WHERE c."searchVector" @@ t.q)
              + ts_rank_cd(c."searchVector", $4::tsquery, 32))::float8 AS score
       FROM "KnowledgeChunk" AS c
      WHERE c.ctid = ANY (ARRAY(${levels.map((_, i) => `SELECT t FROM l${i}`).join(' UNION ')}))
      ORDER BY score DESC, c."id"
      LIMIT $2`;
  return { sql, params };
}

// One entry per database client (tests run several), read again every TERM_STATS_TTL_MS.
const termStats = cache<PrismaClient, Set<string>>({ maxEntries: 16, maxAgeMs: TERM_STATS_TTL_MS });

/**
 * The lexemes in at least DENSE_TERM_SHARE of all chunks, from the planner's statistics (the most
 * common elements ANALYZE keeps for the vector column), read again every TERM_STATS_TTL_MS. They
 * only steer how a level is looked up, never what it matches; without statistics there are none.
 */
function denseTerms(db: PrismaClient): Promise<Set<string>> {
  return termStats.getOrLoad(db, null, () => readDenseTerms(db));
}

async function readDenseTerms(db: PrismaClient): Promise<Set<string>> {
  let dense = new Set<string>();
  try {
    const rows = await db.$queryRawUnsafe<{ lexeme: string }[]>(
      `SELECT e.lexeme FROM pg_stats AS s,
              unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, share)
        WHERE s.schemaname = current_schema() AND s.tablename = 'KnowledgeChunk' AND s.attname = 'searchVector'
          AND e.lexeme IS NOT NULL AND e.share >= $1`,
      DENSE_TERM_SHARE,
    );
    dense = new Set(rows.map((r) => r.lexeme));
  } catch {
    // No statistics (or no right to read them): every level is looked up with all its terms.
  }
  return dense;
}

/** A lexeme as a tsquery operand: quoted, so any character is taken literally. */
function tsqueryTerm(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * A tsquery matching documents that hold at least `j` of `terms`. GIN evaluates the whole
 * expression, one flag per operand, for every candidate row, so its size is the cost per
 * candidate: instead of the OR of the ANDs of every j-subset (C(n, j)·j operands, 280 for 4 of 8),
 * the terms are split into halves A and B and "at least j" is the OR, over i, of "at least i of A"
 * AND "at least j - i of B" (48 operands for 4 of 8). The same documents match.
 */
export function atLeast(terms: string[], j: number): string {
  const expr = threshold(terms, j);
  return expr.op === '&' ? `(${expr.text})` : expr.text;
}

interface Expr {
  text: string;
  /** The top operator; '' for a single operand. */
  op: '' | '&' | '|';
}

function threshold(terms: string[], j: number): Expr {
  const n = terms.length;
  if (n === 1) return { text: terms[0], op: '' };
  if (j === 1) return { text: terms.join(' | '), op: '|' };
  if (j === n) return { text: terms.join(' & '), op: '&' };
  const a = terms.slice(0, n >> 1);
  const b = terms.slice(n >> 1);
  const alternatives: string[] = [];
  for (let i = Math.min(j, a.length); i >= Math.max(0, j - b.length); i--) {
    const factors: Expr[] = [];
    if (i > 0) factors.push(threshold(a, i));
    if (j - i > 0) factors.push(threshold(b, j - i));
    const text = factors.map((f) => (f.op === '|' ? `(${f.text})` : f.text)).join(' & ');
    alternatives.push(factors.length === 1 && factors[0].op !== '&' ? text : `(${text})`);
  }
  return { text: alternatives.join(' | '), op: '|' };
}
