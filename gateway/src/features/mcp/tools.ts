// The tools a key's MCP client sees (docs/adr/0046-mcp-server-and-verified-visitors.md): a pair per
// chatbot the key may reach, `ask_<name>` and `search_knowledge_<name>`. A tool per chatbot, not one
// `ask` with an enumerated `chatbot` argument: a model picks a tool by its name and description far
// more reliably than it fills an enum it must first understand, and every MCP client shows tools by
// name (an enum is hidden in the schema). Names follow the stricter clients' rule,
// `^[a-zA-Z0-9_-]{1,64}$`: the chatbot's name in lower case, its other characters as `_`, at most 32
// characters; chatbots whose names read the same (or a name with no Latin letter or digit) add the
// first 8 characters of their id, so a name never changes with another chatbot's creation order.
import { z } from 'zod';
import { withoutControlCharacters } from '@parley/common/control-characters.ts';

export interface ToolChatbot {
  id: string;
  uniqueId: string;
  name: string;
}

export interface ChatbotTools {
  chatbot: ToolChatbot;
  ask: string;
  searchKnowledge: string;
}

export const ASK_PREFIX = 'ask_';
export const SEARCH_PREFIX = 'search_knowledge_';
const MAX_SLUG = 32;

/** The name's part of a tool name; empty when the name has no Latin letter or digit. */
export function slugOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/_+$/, '');
}

/** Each chatbot's pair of tool names, unique among the chatbots given. */
export function chatbotTools(chatbots: readonly ToolChatbot[]): ChatbotTools[] {
  const slugs = chatbots.map((c) => slugOf(c.name));
  const count = new Map<string, number>();
  for (const slug of slugs) count.set(slug, (count.get(slug) ?? 0) + 1);
  return chatbots.map((chatbot, i) => {
    const slug = slugs[i];
    const shortId = chatbot.id.replace(/-/g, '').slice(0, 8).toLowerCase();
    const name = !slug ? `chatbot_${shortId}` : count.get(slug)! > 1 ? `${slug}_${shortId}` : slug;
    return { chatbot, ask: `${ASK_PREFIX}${name}`, searchKnowledge: `${SEARCH_PREFIX}${name}` };
  });
}

/** A chatbot's name as a tool's description shows it: no control characters, bounded. */
export const shownName = (name: string) => withoutControlCharacters(name).trim().slice(0, 100);

/** What a client may send: bounded here, then by the chat service's own rules (message length, rate limits). */
export const MAX_QUESTION_CHARS = 4000;
export const MAX_QUERY_CHARS = 1000;
export const MAX_RESULTS = 20;
export const DEFAULT_RESULTS = 5;

export const AskInput = {
  message: z.string().trim().min(1, 'message is required').max(MAX_QUESTION_CHARS).describe('The question, as a visitor would ask it.'),
  conversationId: z
    .string()
    .max(200)
    .optional()
    .describe('Continue this conversation (the conversationId of an earlier answer); absent: a new one.'),
};

export const SearchInput = {
  query: z.string().trim().min(1, 'query is required').max(MAX_QUERY_CHARS).describe('What to look for in the knowledge base.'),
  limit: z.number().int().min(1).max(MAX_RESULTS).optional().describe(`How many passages (1-${MAX_RESULTS}, default ${DEFAULT_RESULTS}).`),
};

const Source = z.object({ entryId: z.string(), title: z.string(), url: z.string().optional() });

export const AskOutput = {
  answer: z.string(),
  conversationId: z.string(),
  sources: z.array(Source),
  usage: z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() }),
};

export const SearchOutput = {
  passages: z.array(z.object({ text: z.string(), source: Source })),
};
