// Counting an answered visitor message in its chatbot's interactions and last-interaction time,
// once per request id however often the event is delivered (retries, duplicates, concurrent workers).
import { invalid } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { isUuid } from '../chatbots/chatbot-input.ts';

export interface RecordInteractionDeps {
  db: PrismaClient;
}

/** What the chat service reports for one answer (the ChatbotInteraction event, decoded). */
export interface RecordInteractionInput {
  requestId: string;
  chatbotId: string;
  occurredAt: Date | undefined;
}

/** `counted` the first time; `duplicate` for a request id already counted; `unknownChatbot` when the chatbot is gone. */
export type RecordInteractionResult = 'counted' | 'duplicate' | 'unknownChatbot';

export async function recordInteraction(deps: RecordInteractionDeps, input: RecordInteractionInput): Promise<RecordInteractionResult> {
  const { requestId, chatbotId, occurredAt } = parseInteraction(input);
  // A chatbot id that is not a UUID names no chatbot: nothing to count, nothing to retry.
  if (!chatbotId) return 'unknownChatbot';
  // One statement, so atomic: the request id is claimed and the chatbot counted together. A
  // concurrent duplicate waits on the claim for the first one's commit, then claims (and counts)
  // nothing. Events may arrive out of order: the last interaction only moves forward.
  const [row] = await deps.db.$queryRaw<{ claimed: number; updated: number }[]>`
    WITH claimed AS (
      INSERT INTO "ProcessedInteraction" ("requestId") VALUES (${requestId}) ON CONFLICT ("requestId") DO NOTHING
      RETURNING 1
    ), updated AS (
      UPDATE "Chatbot"
         SET "interactions" = "interactions" + 1,
             "lastInteraction" = GREATEST("lastInteraction", ${occurredAt.toISOString()}::timestamptz)
       WHERE "id" = ${chatbotId}::uuid AND EXISTS (SELECT 1 FROM claimed)
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM claimed)::int AS claimed, (SELECT count(*) FROM updated)::int AS updated`;
  if (row.claimed === 0) return 'duplicate';
  // A deleted chatbot: the request id stays recorded, so a redelivery is a cheap duplicate.
  return row.updated === 0 ? 'unknownChatbot' : 'counted';
}

/** Validates the event; a bad one throws InvalidArgument (it would fail the same way on every retry). */
export function parseInteraction(input: RecordInteractionInput) {
  const requestId = input.requestId.trim();
  if (!requestId) throw invalid('request_id is required.');
  if (requestId.length > 200) throw invalid('request_id must be at most 200 characters.');
  const occurredAt = input.occurredAt;
  if (!occurredAt || Number.isNaN(occurredAt.getTime())) throw invalid('occurred_at is required.');
  const chatbotId = isUuid(input.chatbotId) ? input.chatbotId.trim().toLowerCase() : undefined;
  return { requestId, chatbotId, occurredAt };
}
