// The ChatbotService over ConnectRPC: maps proto messages to the use cases and back, nothing more.
import type { ConnectRouter } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  ChatbotSchema,
  ChatbotService,
  KnowledgeBaseSchema,
  PublicChatbotSchema,
  TextEntrySchema,
  type Chatbot as ChatbotMessage,
  type KnowledgeBase as KnowledgeBaseMessage,
} from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { Chatbot } from './generated/prisma/client.ts';
import { createChatbot, type CreateChatbotDeps } from './chatbots/create-chatbot.ts';
import { deleteChatbot, type DeleteChatbotDeps } from './chatbots/delete-chatbot.ts';
import { getPublicChatbot } from './chatbots/get-public-chatbot.ts';
import { listChatbots } from './chatbots/list-chatbots.ts';
import { findOwnedChatbot } from './chatbots/owned-chatbot.ts';
import { updateChatbot } from './chatbots/update-chatbot.ts';
import { addTextEntry, type AddTextEntryDeps } from './knowledge/add-text-entry.ts';
import { deleteTextEntry } from './knowledge/delete-text-entry.ts';
import { loadKnowledgeBase, loadKnowledgeBases, type KnowledgeBase } from './knowledge/knowledge-base.ts';
import { getPromptKnowledge, type PromptKnowledgeDeps } from './knowledge/prompt-knowledge.ts';
import { retrieve } from './knowledge/retrieve.ts';
import { setProfilePicture, type SetProfilePictureDeps } from './pictures/set-profile-picture.ts';
import type { PublicChange } from './chatbots/public-revision.ts';

export type ChatbotRpcDeps = CreateChatbotDeps &
  DeleteChatbotDeps &
  AddTextEntryDeps &
  SetProfilePictureDeps &
  PromptKnowledgeDeps & {
    /** Called after every committed change the public chat reads (see chatbots/public-revision.ts). */
    publicChanged: PublicChange;
  };

function toPublicChatbotMessage(c: Chatbot) {
  return create(PublicChatbotSchema, {
    id: c.id,
    ownerId: c.ownerId,
    name: c.name,
    profilePicture: c.profilePicture ?? '',
    language: c.language,
    knowledgeChars: BigInt(c.knowledgeChars),
  });
}

export function toKnowledgeBaseMessage(kb: KnowledgeBase): KnowledgeBaseMessage {
  return create(KnowledgeBaseSchema, {
    text: kb.text,
    textEntries: kb.entries.map((e) =>
      create(TextEntrySchema, { id: e.id, title: e.title, content: e.content, createdAt: timestampFromDate(e.createdAt) }),
    ),
  });
}

export function toChatbotMessage(c: Chatbot, kb?: KnowledgeBase): ChatbotMessage {
  return create(ChatbotSchema, {
    id: c.id,
    uniqueId: c.uniqueId,
    ownerId: c.ownerId,
    name: c.name,
    profilePicture: c.profilePicture ?? '',
    isActive: c.isActive,
    language: c.language,
    interactions: BigInt(c.interactions),
    lastInteraction: c.lastInteraction ? timestampFromDate(c.lastInteraction) : undefined,
    createdAt: timestampFromDate(c.createdAt),
    updatedAt: timestampFromDate(c.updatedAt),
    knowledgeBase: kb ? toKnowledgeBaseMessage(kb) : undefined,
  });
}

export function chatbotRoutes(deps: ChatbotRpcDeps) {
  const { db } = deps;
  return (router: ConnectRouter) => {
    router.service(ChatbotService, {
      async createChatbot(req) {
        return { chatbot: toChatbotMessage(await createChatbot(deps, { ownerId: req.ownerId, name: req.name })) };
      },
      async listChatbots(req) {
        const chatbots = await listChatbots(db, req.ownerId);
        const kbs = req.includeKnowledgeBase ? await loadKnowledgeBases(db, chatbots.map((c) => c.id)) : undefined;
        return { chatbots: chatbots.map((c) => toChatbotMessage(c, kbs?.get(c.id))) };
      },
      async getChatbot(req) {
        const chatbot = await findOwnedChatbot(db, { ownerId: req.ownerId, chatbotId: req.chatbotId });
        return { chatbot: toChatbotMessage(chatbot, await loadKnowledgeBase(db, chatbot.id)) };
      },
      async updateChatbot(req) {
        const chatbot = await updateChatbot(db, {
          ownerId: req.ownerId,
          chatbotId: req.chatbotId,
          name: req.name,
          isActive: req.isActive,
          language: req.language,
        });
        await deps.publicChanged(chatbot.id);
        return { chatbot: toChatbotMessage(chatbot, await loadKnowledgeBase(db, chatbot.id)) };
      },
      async deleteChatbot(req) {
        await deleteChatbot(deps, { ownerId: req.ownerId, chatbotId: req.chatbotId });
        await deps.publicChanged(req.chatbotId);
        return {};
      },
      async setProfilePicture(req) {
        const profilePicture = await setProfilePicture(deps, { ownerId: req.ownerId, chatbotId: req.chatbotId, content: req.content });
        await deps.publicChanged(req.chatbotId);
        return { profilePicture };
      },
      async addTextEntry(req) {
        const entry = await addTextEntry(deps, { ownerId: req.ownerId, chatbotId: req.chatbotId, text: req.text });
        await deps.publicChanged(entry.chatbotId);
        return { knowledgeBase: toKnowledgeBaseMessage(await loadKnowledgeBase(db, entry.chatbotId)) };
      },
      async deleteTextEntry(req) {
        const chatbotId = req.chatbotId.trim().toLowerCase();
        await deleteTextEntry(db, { ownerId: req.ownerId, chatbotId, entryId: req.entryId });
        await deps.publicChanged(chatbotId);
        return { knowledgeBase: toKnowledgeBaseMessage(await loadKnowledgeBase(db, chatbotId)) };
      },
      async getPublicChatbot(req) {
        return { chatbot: toPublicChatbotMessage(await getPublicChatbot(db, req.uniqueId)) };
      },
      async getPromptKnowledge(req) {
        const { chatbot, passages, wholeKnowledge } = await getPromptKnowledge(deps, {
          uniqueId: req.uniqueId,
          query: req.query,
          budgetChars: req.budgetChars,
          k: req.k,
        });
        return { chatbot: toPublicChatbotMessage(chatbot), passages, wholeKnowledge };
      },
      async retrieve(req) {
        const chunks = await retrieve(deps.search, { chatbotId: req.chatbotId, query: req.query, k: req.k });
        return { chunks };
      },
    });
  };
}
