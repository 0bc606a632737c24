// The chat page's header and greeting: a chatbot's name, picture, welcome message and suggested
// questions, by its uniqueId, from the chatbot service. Nothing about the owner or the knowledge
// leaves the chat service (the RPC layer maps only these four).
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import type { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { parseUniqueId } from './message-input.ts';
import { chatbotNotFound, chatbotUnavailable } from './visitor-errors.ts';

export interface ChatbotProfileDeps {
  chatbots: Client<typeof ChatbotService>;
  logger: Logger;
}

export interface ChatbotProfile {
  name: string;
  profilePicture: string;
  welcomeMessage: string;
  suggestedQuestions: string[];
}

export async function loadChatbotProfile(deps: ChatbotProfileDeps, rawUniqueId: string): Promise<ChatbotProfile> {
  const uniqueId = parseUniqueId(rawUniqueId);
  try {
    const { chatbot } = await deps.chatbots.getPublicChatbot({ uniqueId });
    if (!chatbot) throw chatbotNotFound();
    return {
      name: chatbot.name,
      profilePicture: chatbot.profilePicture,
      welcomeMessage: chatbot.voice?.welcomeMessage ?? '',
      suggestedQuestions: chatbot.voice?.suggestedQuestions ?? [],
    };
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.NotFound) throw chatbotNotFound();
    deps.logger.warn({ err: (err as Error).message }, 'chatbot GetPublicChatbot failed');
    throw chatbotUnavailable();
  }
}
