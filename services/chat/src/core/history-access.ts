// Conversation history is the owner's only, and only on the Pro plan, enforced here on the server.
// Ownership is the chatbot service's truth and the plan is billing's; both are asked at once.
//
// Ownership is checked with ListChatbots (without knowledge bases) rather than GetChatbot, because
// GetChatbot always carries the whole knowledge base, up to millions of characters, which a history
// view has no use for.
import { type Client } from '@connectrpc/connect';
import { Plan, type BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { forbidden, invalid, notFound, unavailable } from '@parley/common/rpc-errors.ts';
import { isUuid } from '@parley/common/ids.ts';
import { CHATBOT_NOT_FOUND } from '@parley/common/not-found.ts';

export { CHATBOT_NOT_FOUND };

export const HISTORY_PRO_ONLY = 'Conversation history is available on the Pro plan.';
export const HISTORY_UNAVAILABLE = 'Could not load conversation history. Please try again.';

export interface HistoryAccessDeps {
  chatbots: Client<typeof ChatbotService>;
  billing: Client<typeof BillingService>;
  logger: Logger;
}

/** Returns the chatbot's id (normalised) when the owner may read its history; throws otherwise. */
export async function assertHistoryAccess(deps: HistoryAccessDeps, input: { ownerId: string; chatbotId: string }): Promise<string> {
  const { chatbotId, pro } = await chatbotAccess(deps, input, HISTORY_UNAVAILABLE);
  if (!pro) throw forbidden(HISTORY_PRO_ONLY);
  return chatbotId;
}

/**
 * The owner's chatbot (its id, normalised) and whether the owner is on Pro, for every owner-only read
 * of the chat service (history, analytics, unanswered questions): NOT_FOUND for another owner's
 * chatbot, UNAVAILABLE with `unavailableMessage` when either service cannot answer.
 */
export async function chatbotAccess(
  deps: HistoryAccessDeps,
  input: { ownerId: string; chatbotId: string },
  unavailableMessage: string,
): Promise<{ chatbotId: string; pro: boolean }> {
  const ownerId = input.ownerId.trim();
  if (!ownerId) throw invalid('owner_id is required.');
  if (!isUuid(input.chatbotId)) throw notFound(CHATBOT_NOT_FOUND);
  const chatbotId = input.chatbotId.trim().toLowerCase();

  const [owned, plan] = await Promise.allSettled([
    deps.chatbots.listChatbots({ ownerId, includeKnowledgeBase: false }),
    deps.billing.getAccount({ ownerId }),
  ]);
  if (owned.status === 'rejected') {
    deps.logger.warn({ err: (owned.reason as Error).message }, 'chatbot ListChatbots failed');
    throw unavailable(unavailableMessage);
  }
  if (!owned.value.chatbots.some((c) => c.id === chatbotId)) throw notFound(CHATBOT_NOT_FOUND);
  if (plan.status === 'rejected') {
    deps.logger.warn({ err: (plan.reason as Error).message }, 'billing GetAccount failed');
    throw unavailable(unavailableMessage);
  }
  return { chatbotId, pro: plan.value.account?.plan === Plan.PRO };
}
