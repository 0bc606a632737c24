// A chatbot's knowledge base as owners see it: every entry, oldest first, whatever its status (so
// the owner sees what is still processing and what failed), and the combined text of the ready
// ones, the only ones answered from.
import type { PrismaClient, TextEntry } from '../generated/prisma/client.ts';

export interface KnowledgeBase {
  text: string;
  textEntries: TextEntry[];
}

/** One passage of knowledge for a prompt: a ready entry's text or one of its chunks, named for citations. */
export interface KnowledgePassage {
  text: string;
  entryId: string;
  title: string;
  /** A website entry's address; empty otherwise. */
  url: string;
}

export const ENTRY_SEPARATOR = '\n\n';

/** The entry statuses (proto TextEntry.status). */
export const ENTRY_STATUS = { processing: 'processing', ready: 'ready', failed: 'failed' } as const;
/** Where an entry's text came from (proto EntrySource.type). */
export const SOURCE_TYPE = { text: 'text', file: 'file', url: 'url', qa: 'qa' } as const;

export const isReady = (e: Pick<TextEntry, 'status'>) => e.status === ENTRY_STATUS.ready;

export function knowledgeBaseOf(textEntries: TextEntry[]): KnowledgeBase {
  return {
    text: textEntries
      .filter(isReady)
      .map((e) => e.content)
      .join(ENTRY_SEPARATOR),
    textEntries,
  };
}

/** The knowledge bases of several chatbots in one query, keyed by chatbot id (empty ones included). */
export async function loadKnowledgeBases(db: PrismaClient, chatbotIds: string[]): Promise<Map<string, KnowledgeBase>> {
  const entries = chatbotIds.length
    ? await db.textEntry.findMany({ where: { chatbotId: { in: chatbotIds } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
    : [];
  const byChatbot = new Map<string, TextEntry[]>(chatbotIds.map((id) => [id, []]));
  for (const entry of entries) byChatbot.get(entry.chatbotId)?.push(entry);
  return new Map([...byChatbot].map(([id, list]) => [id, knowledgeBaseOf(list)]));
}

export async function loadKnowledgeBase(db: PrismaClient, chatbotId: string): Promise<KnowledgeBase> {
  return (await loadKnowledgeBases(db, [chatbotId])).get(chatbotId)!;
}
