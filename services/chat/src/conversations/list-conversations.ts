// The conversations of one of the owner's chatbots, most recently active first.
import type { PrismaClient } from '../generated/prisma/client.ts';
import { assertHistoryAccess, type HistoryAccessDeps } from '../core/history-access.ts';

/** The history tab lists sessions without paging; this bounds one answer. */
export const MAX_LISTED_CONVERSATIONS = 1000;

export type ConversationsDeps = HistoryAccessDeps & { db: PrismaClient };

export async function listConversations(deps: ConversationsDeps, input: { ownerId: string; chatbotId: string }) {
  const chatbotId = await assertHistoryAccess(deps, input);
  return deps.db.conversation.findMany({
    where: { chatbotId },
    orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
    take: MAX_LISTED_CONVERSATIONS,
  });
}
