// The owner's changes to what the public chat reads, each followed by its announcement: once the
// change is committed, and before the caller is answered, the chatbot gets a new public revision
// (public-revision.ts), so a visitor's next message sees it (ADR 6). Every such change goes through
// here, whoever asks for it (the owner's RPC, the AccountDeleted worker), so none can skip the
// announcement and the RPC layer only maps.
import type { Chatbot, TextEntry } from './generated/prisma/client.ts';
import { addFileEntry, type AddFileEntryDeps } from './knowledge/add-file-entry.ts';
import { addQaEntry } from './knowledge/add-qa-entry.ts';
import { addTextEntry, type AddTextEntryDeps } from './knowledge/add-text-entry.ts';
import { addUrlEntry } from './knowledge/add-url-entry.ts';
import { deleteTextEntry } from './knowledge/delete-text-entry.ts';
import { loadKnowledgeBase, type KnowledgeBase } from './knowledge/knowledge-base.ts';
import { refreshEntry, setEntryAutoSync, type EntryRef } from './knowledge/website-entry.ts';
import { setProfilePicture, type SetProfilePictureDeps } from './pictures/set-profile-picture.ts';
import { deleteChatbot, type DeleteChatbotDeps } from './chatbots/delete-chatbot.ts';
import type { OwnedChatbotRef } from './core/owned-chatbot.ts';
import type { PublicChange } from './core/public-revision.ts';
import { updateChatbot, type UpdateChatbotDeps, type UpdateChatbotInput } from './chatbots/update-chatbot.ts';

export type OwnerChangesDeps = UpdateChatbotDeps &
  DeleteChatbotDeps &
  AddTextEntryDeps &
  AddFileEntryDeps &
  SetProfilePictureDeps & {
    /** Announces a committed change of the chatbot (public-revision.ts). */
    publicChanged: PublicChange;
    /** Queues the embedding of an entry's new chunks (knowledge/embeddings/knowledge-embeddings.ts). */
    entryIndexed: (entry: { chatbotId: string; entryId: string }) => Promise<void>;
  };

/** One entry and the knowledge base it is now part of, as the owner is answered. */
export interface EntryChange {
  entry: TextEntry;
  knowledgeBase: KnowledgeBase;
}

export interface OwnerChanges {
  /** The updated chatbot and its knowledge base, as the owner is answered. */
  updateChatbot(input: UpdateChatbotInput): Promise<{ chatbot: Chatbot; knowledgeBase: KnowledgeBase }>;
  deleteChatbot(input: OwnedChatbotRef): Promise<void>;
  /** The new picture's URL path. */
  setProfilePicture(input: OwnedChatbotRef & { content: Uint8Array }): Promise<string>;
  /** The knowledge base with the new entry. */
  addTextEntry(input: OwnedChatbotRef & { text: string }): Promise<KnowledgeBase>;
  /** The knowledge base without the entry. */
  deleteTextEntry(input: OwnedChatbotRef & { entryId: string }): Promise<KnowledgeBase>;
  /** A file's entry, processing until the ingest job has parsed it (no public change until then). */
  addFileEntry(input: OwnedChatbotRef & { fileName: string; content: Uint8Array }): Promise<EntryChange>;
  /** A web page's entry, processing until fetched. */
  addUrlEntry(input: OwnedChatbotRef & { url: string; crawl: boolean; maxPages: number }): Promise<EntryChange>;
  /** A Q&A pair, ready (and announced) at once. */
  addQaEntry(input: OwnedChatbotRef & { question: string; answer: string }): Promise<EntryChange>;
  /** Queues a fetch of a website entry; its result is announced by the job. */
  refreshEntry(input: EntryRef): Promise<EntryChange>;
  setEntryAutoSync(input: EntryRef & { autoSync: boolean }): Promise<EntryChange>;
}

export function ownerChanges(deps: OwnerChangesDeps): OwnerChanges {
  const { db, publicChanged } = deps;
  const withKnowledgeBase = async (entry: TextEntry): Promise<EntryChange> => ({
    entry,
    knowledgeBase: await loadKnowledgeBase(db, entry.chatbotId),
  });
  /** A ready entry's chunks are written: visitors' next messages see it, and it is queued for embedding. */
  const indexed = async (entry: TextEntry) => {
    await publicChanged(entry.chatbotId);
    try {
      await deps.entryIndexed({ chatbotId: entry.chatbotId, entryId: entry.id });
    } catch (err) {
      // Saved and searchable by its words already; the embeddings' own sweep catches up.
      deps.logger.warn({ err: (err as Error).message, entryId: entry.id }, 'could not queue the embedding of an entry');
    }
  };
  return {
    async updateChatbot(input) {
      const chatbot = await updateChatbot(deps, input);
      await publicChanged(chatbot.id);
      return { chatbot, knowledgeBase: await loadKnowledgeBase(db, chatbot.id) };
    },
    async deleteChatbot(input) {
      await deleteChatbot(deps, input);
      await publicChanged(input.chatbotId, { answers: false });
    },
    async setProfilePicture(input) {
      const profilePicture = await setProfilePicture(deps, input);
      await publicChanged(input.chatbotId, { answers: false });
      return profilePicture;
    },
    async addTextEntry(input) {
      const entry = await addTextEntry(deps, input);
      await indexed(entry);
      return loadKnowledgeBase(db, entry.chatbotId);
    },
    async addQaEntry(input) {
      const entry = await addQaEntry(deps, input);
      await indexed(entry);
      return withKnowledgeBase(entry);
    },
    addFileEntry: async (input) => withKnowledgeBase(await addFileEntry(deps, input)),
    addUrlEntry: async (input) => withKnowledgeBase(await addUrlEntry(deps, input)),
    refreshEntry: async (input) => withKnowledgeBase(await refreshEntry(deps, input)),
    setEntryAutoSync: async (input) => withKnowledgeBase(await setEntryAutoSync(db, input)),
    async deleteTextEntry(input) {
      const chatbotId = await deleteTextEntry(db, input);
      await publicChanged(chatbotId);
      return loadKnowledgeBase(db, chatbotId);
    },
  };
}
