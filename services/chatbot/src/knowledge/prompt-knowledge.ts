// What the public chat needs to answer one message, in one call: the public chatbot and the
// knowledge for its prompt. The rule lives here only: the whole knowledge base when it fits the
// caller's budget (from the in-process cache when this version of the chatbot was read before),
// otherwise the chunks retrieval ranks best for the visitor's message, as many as the budget has
// room for unless the caller asks for a number.
import type { Chatbot, PrismaClient } from '../generated/prisma/client.ts';
import { getPublicChatbot } from '../chatbots/get-public-chatbot.ts';
import { DEFAULT_CHUNKING } from './chunk-text.ts';
import { loadKnowledgeBase } from './knowledge-base.ts';
import type { KnowledgeTextCache } from './knowledge-text-cache.ts';
import { DEFAULT_K, MAX_K, retrieve } from './retrieve.ts';

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
  /** True when passages are the whole knowledge base (the same for every message until a change). */
  wholeKnowledge: boolean;
}

/** Chunks asked for per character of budget: half a chunk each, so there is choice when some do not fit. */
const CHARS_PER_REQUESTED_CHUNK = DEFAULT_CHUNKING.size / 2;

/** How many chunks fill a prompt budget with room to choose: one per 400 characters, 1 to MAX_K; DEFAULT_K without a budget. */
export function retrievalK(budgetChars: number): number {
  if (budgetChars <= 0) return DEFAULT_K;
  return Math.min(MAX_K, Math.max(1, Math.ceil(budgetChars / CHARS_PER_REQUESTED_CHUNK)));
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
  const k = input.k === 0 ? retrievalK(input.budgetChars) : input.k;
  const chunks = await retrieve(deps.search, { chatbotId: chatbot.id, query: input.query, k });
  return { chatbot, passages: chunks.map((c) => c.content), wholeKnowledge: false };
}
