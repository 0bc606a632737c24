// GraphQL counterparts of /api/chatbot/{id}/knowledge-base/*: the same service calls, the same
// messages. Files are uploaded through REST only (POST /api/chatbot/{id}/knowledge-base/files).
import type { Resolvers } from '../../generated/graphql.ts';
import { knowledgeBaseView, maxPagesField, textEntryResultView } from './knowledge.ts';

export const knowledgeResolvers: Resolvers = {
  Mutation: {
    addTextEntry: async (_parent, { chatbotId, text }, ctx) => {
      const { knowledgeBase } = await ctx.clients.chatbot.addTextEntry({ ownerId: (await ctx.member()).ownerId, chatbotId, text });
      return knowledgeBaseView(knowledgeBase);
    },
    deleteTextEntry: async (_parent, { chatbotId, entryId }, ctx) => {
      const { knowledgeBase } = await ctx.clients.chatbot.deleteTextEntry({
        ownerId: (await ctx.member()).ownerId,
        chatbotId,
        entryId,
      });
      return knowledgeBaseView(knowledgeBase);
    },
    addUrlEntry: async (_parent, { chatbotId, url, crawl, maxPages }, ctx) => {
      const added = await ctx.clients.chatbot.addUrlEntry({
        ownerId: (await ctx.member()).ownerId,
        chatbotId,
        url,
        crawl: crawl ?? false,
        maxPages: maxPagesField(maxPages),
      });
      return textEntryResultView(added);
    },
    addQaEntry: async (_parent, { chatbotId, question, answer }, ctx) => {
      const added = await ctx.clients.chatbot.addQaEntry({ ownerId: (await ctx.member()).ownerId, chatbotId, question, answer });
      return textEntryResultView(added);
    },
    refreshTextEntry: async (_parent, { chatbotId, entryId }, ctx) => {
      const refreshed = await ctx.clients.chatbot.refreshEntry({ ownerId: (await ctx.member()).ownerId, chatbotId, entryId });
      return textEntryResultView(refreshed);
    },
    setTextEntryAutoSync: async (_parent, { chatbotId, entryId, autoSync }, ctx) => {
      const changed = await ctx.clients.chatbot.setEntryAutoSync({
        ownerId: (await ctx.member()).ownerId,
        chatbotId,
        entryId,
        autoSync,
      });
      return textEntryResultView(changed);
    },
  },
};
