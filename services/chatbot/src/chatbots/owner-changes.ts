// The owner's changes to what the public chat reads, each followed by its announcement: once the
// change is committed, and before the caller is answered, the chatbot gets a new public revision
// (public-revision.ts), so a visitor's next message sees it (ADR 6). Every such change goes through
// here, whoever asks for it (the owner's RPC, the AccountDeleted worker), so none can skip the
// announcement and the RPC layer only maps.
import type { Chatbot } from '../generated/prisma/client.ts';
import { addTextEntry, type AddTextEntryDeps } from '../knowledge/add-text-entry.ts';
import { deleteTextEntry } from '../knowledge/delete-text-entry.ts';
import { loadKnowledgeBase, type KnowledgeBase } from '../knowledge/knowledge-base.ts';
import { setProfilePicture, type SetProfilePictureDeps } from '../pictures/set-profile-picture.ts';
import { deleteChatbot, type DeleteChatbotDeps } from './delete-chatbot.ts';
import type { OwnedChatbotRef } from './owned-chatbot.ts';
import type { PublicChange } from './public-revision.ts';
import { updateChatbot, type UpdateChatbotInput } from './update-chatbot.ts';

export type OwnerChangesDeps = DeleteChatbotDeps &
  AddTextEntryDeps &
  SetProfilePictureDeps & {
    /** Announces a committed change of the chatbot (public-revision.ts). */
    publicChanged: PublicChange;
  };

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
}

export function ownerChanges(deps: OwnerChangesDeps): OwnerChanges {
  const { db, publicChanged } = deps;
  return {
    async updateChatbot(input) {
      const chatbot = await updateChatbot(db, input);
      await publicChanged(chatbot.id);
      return { chatbot, knowledgeBase: await loadKnowledgeBase(db, chatbot.id) };
    },
    async deleteChatbot(input) {
      await deleteChatbot(deps, input);
      await publicChanged(input.chatbotId);
    },
    async setProfilePicture(input) {
      const profilePicture = await setProfilePicture(deps, input);
      await publicChanged(input.chatbotId);
      return profilePicture;
    },
    async addTextEntry(input) {
      const entry = await addTextEntry(deps, input);
      await publicChanged(entry.chatbotId);
      return loadKnowledgeBase(db, entry.chatbotId);
    },
    async deleteTextEntry(input) {
      const chatbotId = await deleteTextEntry(db, input);
      await publicChanged(chatbotId);
      return loadKnowledgeBase(db, chatbotId);
    },
  };
}
