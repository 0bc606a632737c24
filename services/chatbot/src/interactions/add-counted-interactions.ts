// Adding a batch of answered messages to a chatbot's interactions and last-interaction time (the
// chat service's ChatbotInteractionsCounted, one per chatbot and analytics batch: ADR 23), once per
// id however often the event is delivered (retries, the outbox relay publishing a record again,
// concurrent workers). The id is claimed in ProcessedInteraction, beside the request ids of the
// per-message ChatbotInteraction events: both are random UUIDs made by the chat service, so they
// never meet, and the same retention (7 days, far beyond any redelivery) and pruning serve both.
import { invalid } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { isUuid } from '@parley/common/ids.ts';

export interface AddCountedInteractionsDeps {
  db: PrismaClient;
}

/** What the chat service's analytics worker reports for one chatbot of one batch (the event, decoded). */
export interface CountedInteractionsInput {
  id: string;
  chatbotId: string;
  count: number;
  lastInteractionAt: Date | undefined;
}

/** `counted` the first time; `duplicate` for an id already applied; `unknownChatbot` when the chatbot is gone. */
export type AddCountedInteractionsResult = 'counted' | 'duplicate' | 'unknownChatbot';

/** Past this a count is not a batch's (the analytics worker's batches hold 50 messages). */
const MAX_COUNT = 1_000_000;

export async function addCountedInteractions(
  deps: AddCountedInteractionsDeps,
  input: CountedInteractionsInput,
): Promise<AddCountedInteractionsResult> {
  const { id, chatbotId, count, lastInteractionAt } = parseCountedInteractions(input);
  // A chatbot id that is not a UUID names no chatbot: nothing to count, nothing to retry.
  if (!chatbotId) return 'unknownChatbot';
  // One statement, so atomic: the id is claimed and the chatbot counted together. A concurrent
  // duplicate waits on the claim for the first one's commit, then claims (and adds) nothing. Batches
  // may arrive out of order: the last interaction only moves forward (GREATEST ignores a NULL).
  const [row] = await deps.db.$queryRaw<{ claimed: number; updated: number }[]>`
    WITH claimed AS (
      INSERT INTO "ProcessedInteraction" ("requestId") VALUES (${id}) ON CONFLICT ("requestId") DO NOTHING
      RETURNING 1
    ), updated AS (
      UPDATE "Chatbot"
         SET "interactions" = "interactions" + ${count}::int,
             "lastInteraction" = GREATEST("lastInteraction", ${lastInteractionAt.toISOString()}::timestamptz)
       WHERE "id" = ${chatbotId}::uuid AND EXISTS (SELECT 1 FROM claimed)
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM claimed)::int AS claimed, (SELECT count(*) FROM updated)::int AS updated`;
  if (row.claimed === 0) return 'duplicate';
  // A deleted chatbot: the id stays claimed, so a redelivery is a cheap duplicate.
  return row.updated === 0 ? 'unknownChatbot' : 'counted';
}

/** Validates the event; a bad one throws InvalidArgument (it would fail the same way on every retry). */
export function parseCountedInteractions(input: CountedInteractionsInput) {
  const id = input.id.trim();
  if (!id) throw invalid('id is required.');
  if (id.length > 200) throw invalid('id must be at most 200 characters.');
  if (!Number.isInteger(input.count) || input.count < 1 || input.count > MAX_COUNT)
    throw invalid(`count must be a whole number from 1 to ${MAX_COUNT}.`);
  const lastInteractionAt = input.lastInteractionAt;
  if (!lastInteractionAt || Number.isNaN(lastInteractionAt.getTime())) throw invalid('last_interaction_at is required.');
  const chatbotId = isUuid(input.chatbotId) ? input.chatbotId.trim().toLowerCase() : undefined;
  return { id, chatbotId, count: input.count, lastInteractionAt };
}
