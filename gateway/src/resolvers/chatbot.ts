// GraphQL counterparts of /api/chatbot/*: the same service calls, the same messages.
import type { Resolvers } from '../generated/graphql.ts';
import { chatbotView, knowledgeBaseView, languageChange } from '../chatbots.ts';
import { ownerId } from '../owners.ts';
import { selectsField } from '../selection.ts';

export const chatbotResolvers: Resolvers = {
  Query: {
    chatbots: async (_parent, _args, ctx, info) => {
      // The knowledge bases come in the same call when the query wants them, never one call per chatbot.
      const { chatbots } = await ctx.clients.chatbot.listChatbots({
        ownerId: await ownerId(ctx.clients, ctx.token),
        includeKnowledgeBase: selectsField(info, 'knowledgeBase'),
      });
      return chatbots.map(chatbotView);
    },
    chatbot: async (_parent, { id }, ctx) => {
      const { chatbot } = await ctx.clients.chatbot.getChatbot({ ownerId: await ownerId(ctx.clients, ctx.token), chatbotId: id });
      return chatbotView(chatbot);
    },
  },
  Mutation: {
    createChatbot: async (_parent, { input }, ctx) => {
      const { chatbot } = await ctx.clients.chatbot.createChatbot({ ownerId: await ownerId(ctx.clients, ctx.token), name: input.name });
      return chatbotView(chatbot);
    },
    updateChatbot: async (_parent, { id, input }, ctx) => {
      const { chatbot } = await ctx.clients.chatbot.updateChatbot({
        ownerId: await ownerId(ctx.clients, ctx.token),
        chatbotId: id,
        // GraphQL null means "not given", like an absent field.
        name: input.name ?? undefined,
        isActive: input.isActive ?? undefined,
        ...languageChange(input.language ?? undefined),
      });
      return chatbotView(chatbot);
    },
    deleteChatbot: async (_parent, { id }, ctx) => {
      await ctx.clients.chatbot.deleteChatbot({ ownerId: await ownerId(ctx.clients, ctx.token), chatbotId: id });
      return true;
    },
    addTextEntry: async (_parent, { chatbotId, text }, ctx) => {
      const { knowledgeBase } = await ctx.clients.chatbot.addTextEntry({ ownerId: await ownerId(ctx.clients, ctx.token), chatbotId, text });
      return knowledgeBaseView(knowledgeBase);
    },
    deleteTextEntry: async (_parent, { chatbotId, entryId }, ctx) => {
      const { knowledgeBase } = await ctx.clients.chatbot.deleteTextEntry({
        ownerId: await ownerId(ctx.clients, ctx.token),
        chatbotId,
        entryId,
      });
      return knowledgeBaseView(knowledgeBase);
    },
  },
  Chatbot: {
    // Every read that can select the knowledge base loads it; this is a fallback for any that does not.
    knowledgeBase: async (chatbot, _args, ctx) => {
      if (chatbot.knowledgeBase) return chatbot.knowledgeBase;
      const { chatbot: full } = await ctx.clients.chatbot.getChatbot({
        ownerId: await ownerId(ctx.clients, ctx.token),
        chatbotId: chatbot.id,
      });
      return chatbotView(full).knowledgeBase ?? knowledgeBaseView(undefined);
    },
  },
};
