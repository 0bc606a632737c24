// The public face of a chatbot, from the chatbot service by its uniqueId. Visitors learn only its
// name and picture (the RPC layer sends nothing else); the chat service itself also needs its id,
// owner, language and knowledge size to answer.
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import type { ChatbotService, PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { notFound, unavailableToUser } from '@parley/common/rpc-errors.ts';

export const PUBLIC_CHATBOT_NOT_FOUND = 'Chatbot not found or inactive';
export const CHATBOT_UNAVAILABLE = 'This chatbot is temporarily unavailable. Please try again later.';

const UNIQUE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface PublicChatbotDeps {
  chatbots: Client<typeof ChatbotService>;
  logger: Logger;
}

export async function getPublicChatbot(deps: PublicChatbotDeps, rawUniqueId: string): Promise<PublicChatbot> {
  const uniqueId = rawUniqueId.trim();
  // Anything that cannot be a uniqueId is not looked up (nor counted against a rate limit).
  if (!UNIQUE_ID.test(uniqueId)) throw notFound(PUBLIC_CHATBOT_NOT_FOUND);
  try {
    const { chatbot } = await deps.chatbots.getPublicChatbot({ uniqueId });
    if (!chatbot) throw notFound(PUBLIC_CHATBOT_NOT_FOUND);
    return chatbot;
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.NotFound) throw notFound(PUBLIC_CHATBOT_NOT_FOUND);
    deps.logger.warn({ err: (err as Error).message }, 'chatbot GetPublicChatbot failed');
    throw unavailableToUser(CHATBOT_UNAVAILABLE);
  }
}

export function isValidUniqueId(raw: string): boolean {
  return UNIQUE_ID.test(raw.trim());
}
