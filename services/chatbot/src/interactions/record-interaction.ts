// Counting an answered visitor message in its chatbot's interactions and last-interaction time,
// once per request id however often the event is delivered (retries, duplicates, concurrent workers).
import { invalid } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { isUuid } from '@parley/common/ids.ts';
import { addCountedInteractions } from './add-counted-interactions.ts';

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
  // One message is a count of one under its own request id: the same claim and the same update.
  return addCountedInteractions(deps, { id: requestId, chatbotId, count: 1, lastInteractionAt: occurredAt });
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
