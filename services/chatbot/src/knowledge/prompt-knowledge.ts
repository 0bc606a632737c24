// What the public chat needs to answer one message, in one call: the public chatbot and the
// knowledge for its prompt — the whole knowledge base when it fits the caller's budget (from the
// in-process cache when this version of the chatbot was read before), otherwise the chunks
// retrieval ranks best for the visitor's message.
import type { Chatbot, PrismaClient } from '../generated/prisma/client.ts';
import { getPublicChatbot } from '../chatbots/get-public-chatbot.ts';
import { loadKnowledgeBase } from './knowledge-base.ts';
import type { KnowledgeTextCache } from './knowledge-text-cache.ts';
import { retrieve } from './retrieve.ts';

export interface PromptKnowledgeDeps {
  db: PrismaClient;
  /** The search pool (see retrieve.ts). */
  search: PrismaClient;
  knowledgeCache: KnowledgeTextCache;
}

export interface PromptKnowledge {
  chatbot: Chatbot;
  /** Best first; empty when the knowledge base is. */
  passages: string[];
  wholeKnowledge: boolean;
}

export async function getPromptKnowledge(
  deps: PromptKnowledgeDeps,
  input: { uniqueId: string; query: string; budgetChars: number; k: number },
): Promise<PromptKnowledge> {
  // The row first, on every call: whether the chatbot is active is always current, and the cached
  // text is looked up by the version of the row just read.
  const chatbot = await getPublicChatbot(deps.db, input.uniqueId);
  if (chatbot.knowledgeChars <= 0) return { chatbot, passages: [], wholeKnowledge: true };
  if (chatbot.knowledgeChars <= input.budgetChars) {
    let text = deps.knowledgeCache.get(chatbot);
    if (text === undefined) {
      text = (await loadKnowledgeBase(deps.db, chatbot.id)).text;
      deps.knowledgeCache.set(chatbot, text);
    }
    return { chatbot, passages: text.trim() ? [text] : [], wholeKnowledge: true };
  }
  const chunks = await retrieve(deps.search, { chatbotId: chatbot.id, query: input.query, k: input.k });
  return { chatbot, passages: chunks.map((c) => c.content), wholeKnowledge: false };
}
