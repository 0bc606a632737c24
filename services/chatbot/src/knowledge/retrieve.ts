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
// therefore never missed; only ties at the last level are a sample. "At least j of n" is an OR of
// the ANDs of every j-subset, for which GIN enumerates only the n-j+1 rarest terms' postings.
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { CHATBOT_NOT_FOUND, isUuid } from '../chatbots/chatbot-input.ts';
import { queryText } from './search-text.ts';

export const QUERY_REQUIRED = 'Query is required';
export const K_OUT_OF_RANGE = 'k must be between 1 and 50';
export const DEFAULT_K = 5;
export const MAX_K = 50;
/** Longer questions are cut: their first terms are plenty to find passages. */
const MAX_QUERY_CHARS = 2000;
/** Terms used per question (in question order); 8 keeps the largest level at C(8,4) = 70 ANDs. */
export const MAX_TERMS = 8;
/** Rows read per level; at least 2 × MAX_K so the last level still leaves a choice. */
export const CANDIDATES_PER_LEVEL = 100;

export interface RetrievedChunk {
  chunkId: string;
  entryId: string;
  content: string;
  /** Distinct query terms the chunk holds, plus its cover density scaled into [0, 1). */
  score: number;
}

export async function retrieve(db: PrismaClient, input: { chatbotId: string; query: string; k: number }): Promise<RetrievedChunk[]> {
  if (!isUuid(input.chatbotId)) throw notFound(CHATBOT_NOT_FOUND);
  const chatbotId = input.chatbotId.trim().toLowerCase();
  const query = input.query.trim().slice(0, MAX_QUERY_CHARS);
  if (!query) throw invalid(QUERY_REQUIRED);
  const k = input.k === 0 ? DEFAULT_K : input.k;
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw invalid(K_OUT_OF_RANGE);

  const { latin, grams } = queryText(query);
  // The question's Latin words normalised exactly as the chunks were (the chatbot's configuration:
  // stemming, stop words), in question order. The CASE mirrors searchConfigFor.
  const [chatbot] = await db.$queryRaw<{ lexemes: string[] }[]>`
    SELECT ARRAY(
             SELECT lexeme FROM unnest(to_tsvector(
               (CASE c."language" WHEN 'english' THEN 'english' WHEN 'french' THEN 'french' ELSE 'simple' END)::regconfig,
               ${latin}::text)) ORDER BY positions[1]
           ) AS lexemes
      FROM "Chatbot" AS c WHERE c."id" = ${chatbotId}::uuid`;
  if (!chatbot) throw notFound(CHATBOT_NOT_FOUND);
  const terms = [...new Set([...chatbot.lexemes, ...grams])].slice(0, MAX_TERMS).map(tsqueryTerm);
  if (terms.length === 0) return []; // only stop words

  const { sql, params } = searchSql(chatbotId, k, terms);
  // The planner may prefer a sequential scan for a level it expects to match many rows, and then
  // read the whole table when the match is rare; a level must always come from the GIN index. JIT
  // compilation, triggered by those same estimates, costs more than the whole search.
  const [, , rows] = await db.$transaction([
    db.$executeRawUnsafe('SET LOCAL enable_seqscan = off'),
    db.$executeRawUnsafe('SET LOCAL jit = off'),
    db.$queryRawUnsafe<{ chunk_id: string; entry_id: string; content: string; score: number }[]>(sql, ...params),
  ]);
  return rows.map((r) => ({ chunkId: r.chunk_id, entryId: r.entry_id, content: r.content, score: Number(r.score) }));
}

/** The search statement: one gated CTE per level, then the ranking of the candidates. */
export function searchSql(chatbotId: string, k: number, terms: string[]): { sql: string; params: unknown[] } {
  const levels = terms.map((_, i) => atLeast(terms, terms.length - i)); // n, n-1, …, 1
  const params: unknown[] = [chatbotId, k, terms, levels[levels.length - 1]];
  const ctes = levels.map((tsquery, i) => {
    params.push(tsquery);
    const above = levels.slice(0, i).map((_, j) => `SELECT id FROM l${j}`);
    const gate = above.length ? `(SELECT count(*) FROM (${above.join(' UNION ')}) AS a) < $2 AND` : '';
    return `l${i} AS (
      SELECT "id" AS id, "entryId" AS entry_id, "content" AS content, "searchVector" AS v FROM "KnowledgeChunk"
       WHERE ${gate} "chatbotId" = $1::uuid AND "searchVector" @@ $${params.length}::tsquery
       LIMIT ${CANDIDATES_PER_LEVEL})`;
  });
  const sql = `WITH ${ctes.join(',\n')},
     candidates AS (
       SELECT DISTINCT ON (id) * FROM (${levels.map((_, i) => `SELECT * FROM l${i}`).join(' UNION ALL ')}) AS u ORDER BY id
     )
     SELECT c.id::text AS chunk_id, c.entry_id::text AS entry_id, c.content,
            ((SELECT count(*) FROM unnest($3::tsquery[]) AS t(q) WHERE c.v @@ t.q)
              + ts_rank_cd(c.v, $4::tsquery, 32))::float8 AS score
       FROM candidates AS c
      ORDER BY score DESC, c.id
      LIMIT $2`;
  return { sql, params };
}

/** A lexeme as a tsquery operand: quoted, so any character is taken literally. */
function tsqueryTerm(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** A tsquery matching documents that hold at least `j` of `terms`: the OR of the ANDs of every j-subset. */
export function atLeast(terms: string[], j: number): string {
  const groups: string[] = [];
  const pick = (start: number, chosen: string[]) => {
    if (chosen.length === j) {
      groups.push(chosen.length === 1 ? chosen[0] : `(${chosen.join(' & ')})`);
      return;
    }
    for (let i = start; i <= terms.length - (j - chosen.length); i++) pick(i + 1, [...chosen, terms[i]]);
  };
  pick(0, []);
  return groups.join(' | ');
}
