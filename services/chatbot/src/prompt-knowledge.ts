// What the public chat needs to answer one message, in one call: the public chatbot, the knowledge
// for its prompt and, when the chatbot has Q&A pairs, the pair the message asks (its answer is the
// reply). The rule lives here only: the whole knowledge base when it fits the caller's budget, one
// passage per ready entry (from the in-process cache when this version of the chatbot was read
// before), otherwise the chunks retrieval ranks best for the visitor's message, as many as the
// budget has room for unless the caller asks for a number. Every passage names its entry (id,
// title, a website entry's address) so the reply can cite it.
import { actionTools } from './actions/actions.ts';
import type { ActionDefinition } from './actions/action-definition-schema.ts';
import { mcpModelTools, type McpModelTool } from './actions/mcp-servers.ts';
import type { Chatbot, PrismaClient } from './generated/prisma/client.ts';
import { getPublicChatbot, type PublicChatbotDeps } from './chatbots/get-public-chatbot.ts';
import { qaText } from './knowledge/add-qa-entry.ts';
import { DEFAULT_CHUNKING } from './knowledge/chunk-text.ts';
import { ENTRY_SEPARATOR, ENTRY_STATUS, SOURCE_TYPE, type KnowledgePassage } from './knowledge/knowledge-base.ts';
import type { KnowledgeTextCache } from './knowledge/knowledge-text-cache.ts';
import { matchQaPair, type QaMatch } from './knowledge/qa-match.ts';
import { DEFAULT_K, MAX_K, type RetrieveChunks } from './knowledge/retrieve.ts';
import { compileRedactionPatterns, redactor } from '@parley/common/personal-data.ts';

export interface PromptKnowledgeDeps extends PublicChatbotDeps {
  /** Retrieval (full-text, or hybrid with embeddings): embeddings/knowledge-embeddings.ts. */
  retrieveChunks: RetrieveChunks;
  knowledgeCache: KnowledgeTextCache;
}

export interface PromptKnowledge {
  chatbot: Chatbot;
  /** Best first; empty when the knowledge base is. */
  knowledge: KnowledgePassage[];
  /** Deprecated form of `knowledge`: the whole knowledge base as one passage, or the retrieved chunks. */
  passages: string[];
  /** True when knowledge is the whole knowledge base (the same for every message until a change). */
  wholeKnowledge: boolean;
  qaMatch?: QaMatch;
  /** The chatbot's HTTP actions as tools; read only for a chatbot that has any. */
  actions: ActionDefinition[];
  /** The picked tools of its MCP servers; read only for a chatbot that has any. */
  mcpTools: McpModelTool[];
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
  // passages are looked up by the version of the row just read. Nothing here is shown, so the badge
  // is not read (no billing call on a visitor's message).
  const chatbot = await getPublicChatbot(deps, input.uniqueId, { branding: false });
  const qaMatch = chatbot.qaPairs > 0 ? await matchQaPair(deps.db, { chatbotId: chatbot.id, message: input.query }) : undefined;
  const actions = chatbot.actionCount > 0 ? await actionTools(deps.db, chatbot.id) : [];
  const mcpTools = chatbot.mcpToolCount > 0 ? await mcpModelTools(deps.db, chatbot.id) : [];
  if (chatbot.knowledgeChars <= 0) return { chatbot, knowledge: [], passages: [], wholeKnowledge: true, qaMatch, actions, mcpTools };
  if (chatbot.knowledgeChars <= input.budgetChars) {
    let knowledge = deps.knowledgeCache.get(chatbot);
    if (knowledge === undefined) {
      knowledge = await wholeKnowledge(deps.db, chatbot.id);
      deps.knowledgeCache.set(chatbot, knowledge);
    }
    const text = knowledge.map((p) => p.text).join(ENTRY_SEPARATOR);
    return { chatbot, knowledge, passages: text.trim() ? [text] : [], wholeKnowledge: true, qaMatch, actions, mcpTools };
  }
  const k = input.k === 0 ? retrievalK(input.budgetChars) : input.k;
  // Retrieval may embed the question with the provider (ADR 15): a chatbot keeping personal data from
  // the model has it searched with the placeholders (personal-data.ts), never the details.
  const query = chatbot.redactPersonalData
    ? redactor({ custom: compileRedactionPatterns(chatbot.redactionPatterns) }).redact(input.query)
    : input.query;
  const chunks = await deps.retrieveChunks({ chatbotId: chatbot.id, query, k });
  const entries = chunks.length
    ? await deps.db.textEntry.findMany({
        where: { id: { in: [...new Set(chunks.map((c) => c.entryId))] } },
        select: { id: true, title: true, sourceUrl: true },
      })
    : [];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const knowledge = chunks.map((c) => ({
    text: c.content,
    entryId: c.entryId,
    title: byId.get(c.entryId)?.title ?? '',
    url: byId.get(c.entryId)?.sourceUrl ?? '',
  }));
  return { chatbot, knowledge, passages: chunks.map((c) => c.content), wholeKnowledge: false, qaMatch, actions, mcpTools };
}

/** Every ready entry, oldest first, as one passage (a Q&A pair with its question). */
async function wholeKnowledge(db: PrismaClient, chatbotId: string): Promise<KnowledgePassage[]> {
  const entries = await db.textEntry.findMany({
    where: { chatbotId, status: ENTRY_STATUS.ready },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, title: true, content: true, sourceType: true, sourceUrl: true, question: true },
  });
  return entries.map((e) => ({
    text: e.sourceType === SOURCE_TYPE.qa && e.question ? qaText(e.question, e.content) : e.content,
    entryId: e.id,
    title: e.title,
    url: e.sourceUrl ?? '',
  }));
}
