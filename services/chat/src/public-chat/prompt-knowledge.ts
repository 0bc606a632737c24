// The knowledge an answer is given: the whole knowledge base when it fits the prompt's budget,
// otherwise the chunks the chatbot service's retrieval ranks best for the visitor's message.
import type { Client } from '@connectrpc/connect';
import type { ChatbotService, PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';

/** Retrieval returns at most this many chunks per call. */
const MAX_K = 50;
/** Chunks are at most 800 characters; asking for budget/400 leaves choice when some do not fit. */
const CHARS_PER_REQUESTED_CHUNK = 400;

export function retrievalK(budgetChars: number): number {
  return Math.min(MAX_K, Math.max(1, Math.ceil(budgetChars / CHARS_PER_REQUESTED_CHUNK)));
}

/** Passages best first. Errors are the chatbot service's (the caller decides what the visitor sees). */
export async function loadPromptKnowledge(
  chatbots: Client<typeof ChatbotService>,
  chatbot: PublicChatbot,
  message: string,
  budgetChars: number,
): Promise<string[]> {
  const knowledgeChars = Number(chatbot.knowledgeChars);
  if (knowledgeChars <= 0) return [];
  if (knowledgeChars <= budgetChars) {
    const { chatbot: full } = await chatbots.getChatbot({ ownerId: chatbot.ownerId, chatbotId: chatbot.id });
    const text = full?.knowledgeBase?.text ?? '';
    return text.trim() ? [text] : [];
  }
  return retrievePassages(chatbots, chatbot.id, message, retrievalK(budgetChars));
}

export async function retrievePassages(chatbots: Client<typeof ChatbotService>, chatbotId: string, query: string, k: number): Promise<string[]> {
  const { chunks } = await chatbots.retrieve({ chatbotId, query, k });
  return chunks.map((c) => c.content);
}
