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
  /** How many were asked on each day (YYYY-MM-DD). */
  days: Map<string, number>;
  /** Where each one's result goes: [item, kind index]. */
  places: [number, number][];
}

/**
 * Counts a batch of questions (in their order, oldest first) in the open transaction: the same as
 * counting them one by one, with what they share done once: their lexemes in one statement, each
 * chatbot-kind's lock taken once (in key order, as every batch takes them), and the questions of
 * one chatbot and kind with the same lexemes counted in their group together. Returns, per item,
 * its group per kind (null for a question with nothing to group by).
 */
export async function addQuestionBatch(
  tx: Prisma.TransactionClient,
  items: readonly QuestionBatchItem[],
): Promise<(QuestionAdded | null)[][]> {
  const questions = items.map((item) => item.question.trim().replace(/\s+/g, ' '));
  const lexemes = await questionLexemesOf(
    tx,
    items.map((item, i) => ({ question: questions[i], language: item.language })),
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
          days: new Map(),
          places: [],
        };
        same.set(key, group);
      }
      group.wordings.push(questions[i]);
      if (item.at > group.latest) group.latest = item.at;
      const day = dayString(item.at);
      group.days.set(day, (group.days.get(day) ?? 0) + 1);
      group.places.push([i, k]);
    });
  });
  const locks = [...new Set([...same.values()].map((g) => `parley-question-cluster:${g.chatbotId}:${g.kind}`))].sort();
  for (const lock of locks) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${lock}))`;
  for (const group of same.values()) {
    const added = await addToGroup(tx, group);
    group.places.forEach(([i, k], n) => {
      results[i][k] = { clusterId: added.clusterId, created: added.created && n === 0 };
    });
  }
  return results;
}

async function addToGroup(tx: Prisma.TransactionClient, group: SameQuestions): Promise<QuestionAdded> {
  const { chatbotId, kind, lexemes, wordings, latest } = group;
  const count = wordings.length;
  const [best] = await tx.$queryRaw<{ id: string; examples: string[]; dice: number }[]>`
    SELECT "id", "examples",
           (2.0 * cardinality(ARRAY(SELECT unnest("lexemes") INTERSECT SELECT unnest(${lexemes}::text[])))
             / (cardinality("lexemes") + ${lexemes.length}::int))::float8 AS dice
      FROM "QuestionCluster"
     WHERE "chatbotId" = ${chatbotId}::uuid AND "lexemes" && ${lexemes}::text[] AND "kind" = ${kind}
     ORDER BY dice DESC, "count" DESC, "createdAt" ASC
     LIMIT 1`;

  let clusterId: string;
  const created = !best || best.dice < QUESTION_SIMILARITY;
  if (created) {
    clusterId = randomUUID();
    await tx.$executeRaw`
      INSERT INTO "QuestionCluster" ("id", "chatbotId", "ownerId", "kind", "question", "lexemes", "count", "examples", "lastSeen")
      VALUES (${clusterId}::uuid, ${chatbotId}::uuid, ${group.ownerId}, ${kind}, ${wordings[0]}, ${lexemes}::text[], ${count}::int,
              ${withExamples([], wordings)}::text[], ${latest.toISOString()}::timestamptz)`;
  } else {
    clusterId = best.id;
    // A resolved unanswered group whose question still went unanswered reopens (its Q&A answer did
    // not catch this wording); a dismissed one stays dismissed and keeps counting.
    await tx.$executeRaw`
      UPDATE "QuestionCluster"
         SET "count" = "count" + ${count}::int,
             "examples" = ${withExamples(best.examples, wordings)}::text[],
             "lastSeen" = GREATEST("lastSeen", ${latest.toISOString()}::timestamptz),
             "status" = CASE WHEN "kind" = 'unanswered' AND "status" = 'resolved' THEN 'open' ELSE "status" END
       WHERE "id" = ${clusterId}::uuid`;
  }
  if (kind === 'asked') {
    for (const [day, asked] of [...group.days].sort()) {
      await tx.$executeRaw`
        INSERT INTO "QuestionClusterDay" ("clusterId", "day", "count") VALUES (${clusterId}::uuid, ${day}::date, ${asked}::int)
        ON CONFLICT ("clusterId", "day") DO UPDATE SET "count" = "QuestionClusterDay"."count" + ${asked}::int`;
    }
  }
  return { clusterId, created };
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

/** questionLexemes of several questions in one statement, in their order. */
export async function questionLexemesOf(db: Db, questions: readonly { question: string; language: string }[]): Promise<string[][]> {
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
    SELECT COALESCE(tsvector_to_array(to_tsvector(c::regconfig, q)), '{}') AS lexemes
      FROM unnest(${split.map((q) => q.config)}::text[], ${split.map((q) => q.latin)}::text[]) WITH ORDINALITY AS t(c, q, i)
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
