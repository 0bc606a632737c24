// A deleted account's chatbots go one by one through the owner's own deletion (owner-changes.ts),
// so each one's knowledge, picture file, ChatbotDeleted event (through the outbox) and public
// revision are handled exactly as when the owner deletes it. AccountDeleted is delivered at least
// once and possibly twice at the same time: a chatbot another delivery has just deleted is "not
// found" here and skipped, and a delivery that finds nothing left does nothing.
import { Code, ConnectError } from '@connectrpc/connect';
import { parseOwnerId } from './core/chatbot-input.ts';
import { ownerChanges, type OwnerChangesDeps } from './owner-changes.ts';

export type DeleteOwnerChatbotsDeps = OwnerChangesDeps;

export interface DeleteOwnerChatbotsInput {
  ownerId: string;
}

/** Chatbots read per round; an owner has few, the rounds only bound a pathological case. */
const BATCH = 100;

/** Returns how many chatbots this call deleted (0 when another delivery or the owner got there first). */
export async function deleteOwnerChatbots(deps: DeleteOwnerChatbotsDeps, input: DeleteOwnerChatbotsInput): Promise<number> {
  const ownerId = parseOwnerId(input.ownerId);
  const { deleteChatbot } = ownerChanges(deps);
  let deleted = 0;
  // Rounds until none is left, so a chatbot created while the first round ran is deleted too.
  for (;;) {
    const chatbots = await deps.db.chatbot.findMany({ where: { ownerId }, select: { id: true }, orderBy: { id: 'asc' }, take: BATCH });
    if (chatbots.length === 0) return deleted;
    for (const { id: chatbotId } of chatbots) {
      try {
        await deleteChatbot({ ownerId, chatbotId });
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.NotFound) continue;
        throw err;
      }
      deleted++;
    }
  }
}
