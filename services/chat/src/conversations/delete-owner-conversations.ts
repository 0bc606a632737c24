// A deleted account's conversations: the owner's chatbots are found from the conversations kept for
// them, and each goes through the rule for a deleted chatbot (delete-conversations.ts), so its
// conversations, messages and recent turns are removed exactly as on ChatbotDeleted. AccountDeleted
// is delivered at least once, possibly twice at the same time: both deletions are idempotent.
//
// A chatbot found here stores no exchange once it is deleted (conversation-store.ts); one not
// found here (no conversation or analytics yet) is deleted by its ChatbotDeleted, which the chatbot
// service sends for each of the owner's chatbots on its own AccountDeleted.
import { invalid } from '@parley/common/rpc-errors.ts';
import { chatbotsWithAnalytics } from '../analytics/delete-analytics.ts';
import { deleteChatbotConversations, type DeleteChatbotConversationsDeps } from './delete-conversations.ts';

export type DeleteOwnerConversationsDeps = DeleteChatbotConversationsDeps;

export interface DeleteOwnerConversationsInput {
  /** Auth's user id: the ownerId the conversations were stored with. */
  ownerId: string;
}

export interface OwnerConversationsDeleted {
  chatbots: number;
  conversations: number;
  recentTurns: number;
}

export async function deleteOwnerConversations(
  deps: DeleteOwnerConversationsDeps,
  input: DeleteOwnerConversationsInput,
): Promise<OwnerConversationsDeleted> {
  const ownerId = input.ownerId.trim();
  if (!ownerId) throw invalid('user_id is required.');
  // No index on ownerId: an account is deleted rarely, and a scan then costs less than an index
  // kept up to date on every conversation opened.
  const withConversations = await deps.db.conversation.groupBy({ by: ['chatbotId'], where: { ownerId } });
  // A chatbot may have analytics left when its conversations are gone (a step failed before).
  const withChannels = await deps.db.channelConnection.findMany({ where: { ownerId }, select: { chatbotId: true } });
  const chatbots = [
    ...new Set([
      ...withConversations.map((c) => c.chatbotId),
      ...withChannels.map((c) => c.chatbotId),
      ...(await chatbotsWithAnalytics(deps.db, ownerId)),
    ]),
  ].map((chatbotId) => ({ chatbotId }));
  const deleted: OwnerConversationsDeleted = { chatbots: chatbots.length, conversations: 0, recentTurns: 0 };
  for (const { chatbotId } of chatbots) {
    const removed = await deleteChatbotConversations(deps, chatbotId);
    deleted.conversations += removed.conversations;
    deleted.recentTurns += removed.recentTurns;
  }
  return deleted;
}
