// Groups a chatbot's visitor questions by similarity, so an owner sees "opening hours" asked 40
// times in three wordings as one line (the most asked questions) and fixes ten failed questions
// with one answer (the unanswered-question loop). A question is reduced to its lexemes under the
// chatbot's text-search configuration (stemmed, stop words out), and joins the group of its chatbot
// and kind whose lexemes are most alike by Dice's coefficient, 2|A∩B| / (|A| + |B|), when that
// reaches QUESTION_SIMILARITY; else it starts a group. A group keeps its first wording's lexemes,
// so it does not drift as it grows. Candidates are found by the GIN index on (chatbotId, lexemes).
//
// Grouping one chatbot's questions of one kind is serialised by a transaction-level advisory lock,
// so two identical questions arriving at once end in one group, not two.
import { randomUUID } from 'node:crypto';
import { Prisma } from '../generated/prisma/client.ts';
import { dayString, type Db } from './aggregates.ts';

/** Dice's coefficient from which a question joins a group (2 of 3 lexemes shared, or 1 of 2, joins). */
export const QUESTION_SIMILARITY = 0.5;
/** Recent wordings kept on a group, newest first, distinct. */
export const MAX_EXAMPLES = 5;

/** `asked`: every question (the most asked); `unanswered`: those the knowledge could not answer or a visitor rated down. */
export type QuestionKind = 'asked' | 'unanswered';
export type ClusterStatus = 'open' | 'resolved' | 'dismissed';

export interface QuestionInput {
  chatbotId: string;
  ownerId: string;
  kind: QuestionKind;
  /** The visitor's message as sent. */
  question: string;
  /** The chatbot's language (english, french or chinese). */
  language: string;
  /** When it was asked. */
  at: Date;
  /**
   * Why it went unanswered (core/reasons.ts): an unanswered group keeps its latest question's reason;
   * absent or null: missing_knowledge. Asked groups keep none.
   */
  reason?: string | null;
}

export interface QuestionAdded {
  clusterId: string;
  /** A new group was started. */
  created: boolean;
}

/**
 * Counts the question in its group. Given a PrismaClient it runs in a transaction of its own; given
 * a transaction it runs in it (the lock is held to that transaction's end). A question with nothing
 * to group by (only punctuation) is not counted: null.
 */
export async function addQuestion(db: Db, input: QuestionInput): Promise<QuestionAdded | null> {
  const [added] = await addQuestions(db, input, [input.kind]);
  return added;
}

/** addQuestion for several kinds at once (one per kind, in this order), the lexemes computed once. */
export async function addQuestions(
  db: Db,
  input: Omit<QuestionInput, 'kind'>,
  kinds: readonly QuestionKind[],
): Promise<(QuestionAdded | null)[]> {
  const run = async (tx: Prisma.TransactionClient) => (await addQuestionBatch(tx, [{ ...input, kinds }]))[0];
  return '$transaction' in db ? db.$transaction(run) : run(db);
}

/** One question of a batch, counted in the groups of each of its kinds. */
export interface QuestionBatchItem extends Omit<QuestionInput, 'kind'> {
  kinds: readonly QuestionKind[];
}

/** The questions of a batch that share a chatbot, a kind and their lexemes: they join the same group. */
interface SameQuestions {
  chatbotId: string;
  ownerId: string;
  kind: QuestionKind;
  lexemes: string[];
  /** Their wordings, oldest first. */
  wordings: string[];
  latest: Date;
  /** The latest one's reason (unanswered sets); null for asked ones. */
  reason: string | null;
  /** How many were asked on each day (YYYY-MM-DD). */
  days: Map<string, number>;
  /** Where each one's result goes: [item, kind index]. */
  places: [number, number][];
}

/**
 * Counts a batch of questions (in their order, oldest first) in the open transaction: the same as
 * counting them one by one, in three statements whatever the batch holds:
 * 1. their lexemes, and each chatbot-kind's lock (in key order, as every batch takes them);
 * 2. for each set of same questions (one chatbot, one kind, the same lexemes), the groups alike
 *    enough to join, read after the locks are held;
 * 3. the groups started, the groups joined and the asked groups' days, written together.
 * Which group each set joins is decided here, in order, as one-by-one counting would: a set may join
 * a group an earlier set of the batch started or grew (its count and examples as they now are).
 * Returns, per item, its group per kind (null for a question with nothing to group by).
 */
export async function addQuestionBatch(
  tx: Prisma.TransactionClient,
  items: readonly QuestionBatchItem[],
): Promise<(QuestionAdded | null)[][]> {
  const questions = items.map((item) => item.question.trim().replace(/\s+/g, ' '));
  const locks = [...new Set(items.flatMap((item) => item.kinds.map((kind) => `parley-question-cluster:${item.chatbotId}:${kind}`)))].sort();
  const lexemes = await questionLexemesOf(
    tx,
    items.map((item, i) => ({ question: questions[i], language: item.language })),
    locks,
  );
  const results: (QuestionAdded | null)[][] = items.map((item) => item.kinds.map(() => null));
  const same = new Map<string, SameQuestions>();
  items.forEach((item, i) => {
    if (lexemes[i].length === 0) return;
    item.kinds.forEach((kind, k) => {
      const key = `${item.chatbotId}|${kind}|${lexemes[i].join(' ')}`;
      let group = same.get(key);
      if (!group) {
        group = {
          chatbotId: item.chatbotId,
          ownerId: item.ownerId,
          kind,
          lexemes: lexemes[i],
          wordings: [],
          latest: item.at,
          reason: null,
          days: new Map(),
          places: [],
        };
        same.set(key, group);
      }
      group.wordings.push(questions[i]);
      if (item.at >= group.latest) group.latest = item.at;
      if (kind === 'unanswered' && (item.at >= group.latest || group.reason === null)) group.reason = item.reason ?? 'missing_knowledge';
      const day = dayString(item.at);
      group.days.set(day, (group.days.get(day) ?? 0) + 1);
      group.places.push([i, k]);
    });
  });
  const sets = [...same.values()];
  if (sets.length === 0) return results;

  const candidates = await groupsAlike(tx, sets);
  // The groups as counting one set after another leaves them: those read, then those started here.
  const groups = new Map<string, GroupState>();
  const started: GroupState[] = [];
  const days = new Map<string, { clusterId: string; day: string; count: number }>();
  sets.forEach((set, n) => {
    const options: GroupState[] = candidates[n].map((c) => {
      let group = groups.get(c.id);
      if (!group) {
        group = { ...c, created: false, order: -1, joined: 0, latest: null, reason: null };
        groups.set(c.id, group);
      }
      return group;
    });
    for (const group of started) {
      if (group.chatbotId === set.chatbotId && group.kind === set.kind && dice(group.lexemes, set.lexemes) >= QUESTION_SIMILARITY) {
        options.push(group);
      }
    }
    const best = options
      .map((group) => ({ group, dice: dice(group.lexemes, set.lexemes) }))
      .sort(
        (a, b) =>
          b.dice - a.dice || b.group.count - a.group.count || a.group.order - b.group.order || a.group.createdAt - b.group.createdAt,
      )[0]?.group;
    let group: GroupState;
    if (best) {
      group = best;
      group.count += set.wordings.length;
      group.joined += set.wordings.length;
      group.examples = withExamples(group.examples, set.wordings);
      if (!group.latest || set.latest >= group.latest) {
        group.latest = set.latest;
        if (set.reason) group.reason = set.reason;
      }
    } else {
      group = {
        id: randomUUID(),
        chatbotId: set.chatbotId,
        ownerId: set.ownerId,
        kind: set.kind,
        question: set.wordings[0],
        lexemes: set.lexemes,
        count: set.wordings.length,
        examples: withExamples([], set.wordings),
        createdAt: 0,
        created: true,
        order: started.length,
        joined: set.wordings.length,
        latest: set.latest,
        reason: set.reason,
      };
      started.push(group);
    }
    if (set.kind === 'asked') {
      for (const [day, asked] of set.days) {
        const key = `${group.id}|${day}`;
        const row = days.get(key) ?? { clusterId: group.id, day, count: 0 };
        row.count += asked;
        days.set(key, row);
      }
    }
    set.places.forEach(([i, k], m) => {
      results[i][k] = { clusterId: group.id, created: !best && m === 0 };
    });
  });
  await writeGroups(
    tx,
    started,
    [...groups.values()].filter((g) => g.joined > 0),
    [...days.values()].sort((a, b) => (a.clusterId + a.day < b.clusterId + b.day ? -1 : 1)),
  );
  return results;
}

/** A group read or started by a batch, as the batch leaves it. */
interface GroupState {
  id: string;
  chatbotId: string;
  ownerId: string;
  kind: QuestionKind;
  question: string;
  lexemes: string[];
  count: number;
  examples: string[];
  /** Read groups: when created (ms); started ones order after every read one by `order`. */
  createdAt: number;
  created: boolean;
  /** -1 for a group read; the place among the batch's started groups otherwise. */
  order: number;
  /** Questions of this batch counted in it. */
  joined: number;
  /** The latest of this batch's questions counted in it. */
  latest: Date | null;
  /** That question's reason (unanswered groups); null: unchanged. */
  reason: string | null;
}

/** Dice's coefficient of two sorted, distinct lexeme lists, as the SQL of groupsAlike computes it. */
function dice(a: readonly string[], b: readonly string[]): number {
  const set = new Set(a);
  const shared = b.filter((l) => set.has(l)).length;
  return (2.0 * shared) / (a.length + b.length);
}

/** For each set, in order, the groups of its chatbot and kind alike enough to join (one statement). */
async function groupsAlike(
  tx: Prisma.TransactionClient,
  sets: readonly SameQuestions[],
): Promise<Omit<GroupState, 'created' | 'order' | 'joined' | 'latest' | 'reason'>[][]> {
  const rows = await tx.$queryRaw<
    {
      n: bigint;
      id: string;
      chatbotId: string;
      ownerId: string;
      kind: QuestionKind;
      question: string;
      lexemes: string[];
      count: number;
      examples: string[];
      createdAt: Date;
    }[]
  >`
    SELECT s.n, g."id"::text AS id, g."chatbotId"::text AS "chatbotId", g."ownerId", g."kind", g."question", g."lexemes", g."count",
           g."examples", g."createdAt"
      FROM jsonb_to_recordset(${JSON.stringify(sets.map((s, n) => ({ n, c: s.chatbotId, k: s.kind, l: s.lexemes })))}::jsonb)
           AS s(n int, c uuid, k text, l text[])
      JOIN "QuestionCluster" g ON g."chatbotId" = s.c AND g."kind" = s.k AND g."lexemes" && s.l
     WHERE (2.0 * cardinality(ARRAY(SELECT unnest(g."lexemes") INTERSECT SELECT unnest(s.l))) / (cardinality(g."lexemes") + cardinality(s.l)))::float8
           >= ${QUESTION_SIMILARITY}::float8`;
  const out = sets.map(() => [] as Omit<GroupState, 'created' | 'order' | 'joined' | 'latest' | 'reason'>[]);
  for (const row of rows) {
    out[Number(row.n)].push({
      id: row.id,
      chatbotId: row.chatbotId,
      ownerId: row.ownerId,
      kind: row.kind,
      question: row.question,
      lexemes: row.lexemes,
      count: row.count,
      examples: row.examples,
      createdAt: row.createdAt.getTime(),
    });
  }
  return out;
}

/**
 * One statement: the groups started (with their counts, examples and last seen), the groups joined
 * (a resolved unanswered group whose question still went unanswered reopens: its Q&A answer did not
 * catch this wording; a dismissed one stays dismissed and keeps counting), and the asked groups' days.
 */
async function writeGroups(
  tx: Prisma.TransactionClient,
  started: readonly GroupState[],
  joined: readonly GroupState[],
  days: readonly { clusterId: string; day: string; count: number }[],
): Promise<void> {
  const startedRows = started.map((g) => ({
    id: g.id,
    c: g.chatbotId,
    o: g.ownerId,
    k: g.kind,
    q: g.question,
    l: g.lexemes,
    n: g.count,
    e: g.examples,
    s: g.latest!.toISOString(),
    r: g.reason,
  }));
  const joinedRows = joined
    .filter((g) => !g.created)
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((g) => ({ id: g.id, n: g.joined, e: g.examples, s: g.latest!.toISOString(), r: g.reason }));
  await tx.$executeRaw`
    WITH started AS (
      INSERT INTO "QuestionCluster" ("id", "chatbotId", "ownerId", "kind", "question", "lexemes", "count", "examples", "lastSeen", "reason")
      SELECT t.id, t.c, t.o, t.k, t.q, t.l, t.n, t.e, t.s, t.r
        FROM jsonb_to_recordset(${JSON.stringify(startedRows)}::jsonb)
             AS t(id uuid, c uuid, o text, k text, q text, l text[], n int, e text[], s timestamptz, r text)
    ), joined AS (
      UPDATE "QuestionCluster" AS g
         SET "count" = g."count" + t.n,
             "examples" = t.e,
             "lastSeen" = GREATEST(g."lastSeen", t.s),
             "status" = CASE WHEN g."kind" = 'unanswered' AND g."status" = 'resolved' THEN 'open' ELSE g."status" END,
             "reason" = CASE WHEN t.r IS NOT NULL AND t.s >= g."lastSeen" THEN t.r ELSE g."reason" END
        FROM jsonb_to_recordset(${JSON.stringify(joinedRows)}::jsonb) AS t(id uuid, n int, e text[], s timestamptz, r text)
       WHERE g."id" = t.id
    )
    INSERT INTO "QuestionClusterDay" ("clusterId", "day", "count")
    SELECT t.id, t.d, t.n FROM jsonb_to_recordset(${JSON.stringify(days.map((d) => ({ id: d.clusterId, d: d.day, n: d.count })))}::jsonb)
           AS t(id uuid, d date, n int)
    ON CONFLICT ("clusterId", "day") DO UPDATE SET "count" = "QuestionClusterDay"."count" + EXCLUDED."count"`;
}

/** The examples after each wording in turn (oldest first) was added with withExample. */
function withExamples(examples: readonly string[], wordings: readonly string[]): string[] {
  return wordings.reduce<string[]>((kept, wording) => withExample(kept, wording), [...examples]);
}

/** The examples with `question` first, without another wording equal to it, at most MAX_EXAMPLES. */
export function withExample(examples: readonly string[], question: string): string[] {
  const key = normalisedText(question);
  return [question, ...examples.filter((e) => normalisedText(e) !== key)].slice(0, MAX_EXAMPLES);
}

/** Lower case, without punctuation, single spaces: the text questions without lexemes are grouped by. */
export function normalisedText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Words that only make a question polite or a question ("how much", "can you tell me"), as stemmed
 * by the configuration; Postgres's stop lists keep them, and they would make "How much does shipping
 * cost?" and "shipping price" look unalike.
 */
const QUESTION_FILLERS: Record<SearchConfig, ReadonlySet<string>> = {
  english: new Set([
    'much',
    'mani',
    'pleas',
    'tell',
    'know',
    'could',
    'would',
    'want',
    'need',
    'like',
    'get',
    'thank',
    'hello',
    'hi',
    'hey',
    'may',
    'might',
    'also',
    'possibl',
  ]),
  french: new Set([
    'combien',
    'est-ce',
    'pouv',
    'peux',
    'peut',
    'dir',
    'merc',
    'bonjour',
    'salut',
    'plaît',
    'svp',
    'savoir',
    'voudr',
    'voul',
    'veux',
    'aim',
    'besoin',
    'possibl',
  ]),
  simple: new Set(),
};

type SearchConfig = 'english' | 'french' | 'simple';

/**
 * The text-search configuration of a chatbot language: Chinese has no stemmer. The same rule as the
 * chatbot service's searchConfigFor (services/chatbot/src/knowledge/search-text.ts); services do not
 * import each other, so it is repeated here.
 */
export function searchConfigFor(language: string): SearchConfig {
  if (language === 'english' || language === 'french') return language;
  return 'simple';
}

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

/**
 * A question's lexemes, sorted and distinct: Latin words through the chatbot's configuration without
 * QUESTION_FILLERS, CJK runs (no spaces between words) as their bigrams, or the character itself
 * for a one-character run, like the chatbot service's queries. A question of stop words only
 * ("what is it?") is grouped by its normalised text, kept as its one "lexeme".
 */
export async function questionLexemes(db: Db, question: string, language: string): Promise<string[]> {
  const [lexemes] = await questionLexemesOf(db, [{ question, language }]);
  return lexemes;
}

/**
 * questionLexemes of several questions in one statement, in their order; the statement first takes
 * the transaction-level advisory `locks` given, in their order.
 */
export async function questionLexemesOf(
  db: Db,
  questions: readonly { question: string; language: string }[],
  locks: readonly string[] = [],
): Promise<string[][]> {
  if (questions.length === 0) return [];
  const split = questions.map(({ question, language }) => {
    const config = searchConfigFor(language);
    const grams = new Set<string>();
    const latin = question.replace(CJK_RUN, (run) => {
      const chars = [...run];
      if (chars.length === 1) grams.add(chars[0]);
      for (let i = 0; i + 1 < chars.length; i++) grams.add(chars[i] + chars[i + 1]);
      return ' ';
    });
    return { question, config, latin, grams };
  });
  const rows = await db.$queryRaw<{ lexemes: string[] }[]>`
    WITH locked AS MATERIALIZED (
      SELECT count(pg_advisory_xact_lock(hashtext(l))) AS n
        FROM (SELECT l FROM unnest(${locks}::text[]) WITH ORDINALITY AS k(l, i) ORDER BY i) AS ordered
    )
    SELECT COALESCE(tsvector_to_array(to_tsvector(c::regconfig, q)), '{}') AS lexemes, locked.n
      FROM unnest(${split.map((q) => q.config)}::text[], ${split.map((q) => q.latin)}::text[]) WITH ORDINALITY AS t(c, q, i), locked
     ORDER BY i`;
  return split.map(({ question, config, grams }, i) => {
    const fillers = QUESTION_FILLERS[config];
    const lexemes = new Set([...rows[i].lexemes.filter((l) => !fillers.has(l)), ...grams]);
    if (lexemes.size === 0) {
      const text = normalisedText(question);
      return text ? [text] : [];
    }
    return [...lexemes].sort();
  });
}
