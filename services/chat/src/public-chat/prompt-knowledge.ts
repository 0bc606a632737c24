// The knowledge an answer is given: the whole knowledge base when it fits the prompt's budget,
// otherwise the chunks the chatbot service's retrieval ranks best for the visitor's message.
import { Code, ConnectError, type Client } from '@connectrpc/connect';
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

export interface ChatbotWithKnowledge {
  chatbot: PublicChatbot;
  /** Best first, as loadPromptKnowledge (budget > 0) or retrievePassages (budget 0) would give them. */
  passages: string[];
  /** True when the passages are the whole knowledge base (not retrieved for this message). */
  wholeKnowledge: boolean;
}

/**
 * The public chatbot and its prompt knowledge in one call to the chatbot service (GetPromptKnowledge).
 * Null when that call failed in a way the two-call path (GetPublicChatbot, then GetChatbot or
 * Retrieve) should answer instead, so a visitor sees exactly the errors that path gives: the
 * chatbot service does not offer the call yet (an older version during a rollout), or the knowledge
 * part failed. NOT_FOUND and an unreachable or slow chatbot service are thrown as they are: the
 * two-call path would only answer the same after waiting again.
 */
export async function loadChatbotWithKnowledge(
  chatbots: Client<typeof ChatbotService>,
  input: { uniqueId: string; message: string; budgetChars: number; k: number },
): Promise<ChatbotWithKnowledge | null> {
  try {
    const res = await chatbots.getPromptKnowledge({ uniqueId: input.uniqueId, query: input.message, budgetChars: input.budgetChars, k: input.k });
    if (!res.chatbot) return null;
    return { chatbot: res.chatbot, passages: res.passages, wholeKnowledge: res.wholeKnowledge };
  } catch (err) {
    if (err instanceof ConnectError && !ANSWERED_AS_IS.has(err.code)) return null;
    throw err;
  }
}

const ANSWERED_AS_IS = new Set([Code.NotFound, Code.Unavailable, Code.DeadlineExceeded, Code.Canceled]);
