// One conversation of one of the owner's chatbots, with its messages in the order they were sent.
import { notFound } from '@parley/common/rpc-errors.ts';
import { assertHistoryAccess } from '../core/history-access.ts';
import { isUuid } from '@parley/common/ids.ts';
import type { ConversationsDeps } from './list-conversations.ts';
import { CONVERSATION_NOT_FOUND } from '@parley/common/not-found.ts';

export { CONVERSATION_NOT_FOUND };

/** The longest session id looked up; the service issues far shorter ones. */
const MAX_SESSION_ID_CHARS = 200;

/** By its id, or (the developer API) by its session id when one is given. */
export async function getConversation(
  deps: ConversationsDeps,
  input: { ownerId: string; chatbotId: string; conversationId: string; sessionId?: string },
) {
  const chatbotId = await assertHistoryAccess(deps, input);
  const sessionId = input.sessionId?.trim() ?? '';
  if (sessionId ? sessionId.length > MAX_SESSION_ID_CHARS : !isUuid(input.conversationId)) throw notFound(CONVERSATION_NOT_FOUND);
  const conversation = await deps.db.conversation.findFirst({
    where: sessionId ? { sessionId, chatbotId } : { id: input.conversationId.trim().toLowerCase(), chatbotId },
    include: { messages: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
  });
  if (!conversation) throw notFound(CONVERSATION_NOT_FOUND);
  return conversation;
}
