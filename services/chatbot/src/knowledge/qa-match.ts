// Whether a visitor's message asks one of the chatbot's Q&A questions. Both texts are reduced to
// lexemes by the chatbot's own text-search configuration (stemming, stop words: "What are your
// opening hours?" and "what are the opening hours" are both {open, hour}); a pair matches when the
// Dice coefficient of the two sets is at least QA_MIN_DICE, or when the texts are identical once
// lower-cased and stripped of punctuation (which also covers questions that are all stop words, or
// written without spaces, like Chinese). The best match wins, then the oldest pair. The few pairs a
// chatbot has are normalised on the fly, in the same statement.
import type { PrismaClient } from '../generated/prisma/client.ts';
import { searchConfigSql } from './search-text.ts';

export const QA_MIN_DICE = 0.6;
/** Longer messages are not questions a pair answers verbatim; they are cut before normalising. */
const MAX_MESSAGE_CHARS = 1000;

export interface QaMatch {
  entryId: string;
  question: string;
  answer: string;
}

/** Lower case, punctuation and symbols dropped, spaces collapsed; an SQL expression over `text`. */
const plainSql = (text: string) => `btrim(regexp_replace(regexp_replace(lower(${text}), '[[:punct:]]', '', 'g'), '\\s+', ' ', 'g'))`;

export async function matchQaPair(db: PrismaClient, input: { chatbotId: string; message: string }): Promise<QaMatch | undefined> {
  const message = input.message.trim().slice(0, MAX_MESSAGE_CHARS);
  if (!message) return undefined;
  const [match] = await db.$queryRawUnsafe<QaMatch[]>(
    `WITH config AS (
       SELECT ${searchConfigSql('"language"')}::regconfig AS cfg FROM "Chatbot" WHERE "id" = $1::uuid
     ), msg AS (
       SELECT tsvector_to_array(to_tsvector(config.cfg, $2::text)) AS lexemes, ${plainSql('$2::text')} AS plain FROM config
     ), pairs AS (
       SELECT e."id", e."question", e."content", e."createdAt",
              tsvector_to_array(to_tsvector(config.cfg, e."question")) AS lexemes, ${plainSql('e."question"')} AS plain
         FROM "KnowledgeEntry" AS e, config
        WHERE e."chatbotId" = $1::uuid AND e."sourceType" = 'qa' AND e."status" = 'ready' AND e."question" IS NOT NULL
     ), scored AS (
       SELECT pairs.*, (pairs.plain = msg.plain AND msg.plain <> '') AS same,
              CASE WHEN cardinality(pairs.lexemes) + cardinality(msg.lexemes) = 0 THEN 0
                   ELSE 2.0 * cardinality(ARRAY(SELECT unnest(pairs.lexemes) INTERSECT SELECT unnest(msg.lexemes)))
                        / (cardinality(pairs.lexemes) + cardinality(msg.lexemes)) END AS dice
         FROM pairs, msg
     )
     SELECT "id"::text AS "entryId", "question", "content" AS answer FROM scored
      WHERE same OR dice >= $3
      ORDER BY same DESC, dice DESC, "createdAt", "id"
      LIMIT 1`,
    input.chatbotId,
    message,
    QA_MIN_DICE,
  );
  return match;
}
