// GraphQL counterparts of /api/chatbot/{id}/conversations: the same service calls, the same rules
// (owner-only, pro-only, decided by the chat service).
import type { Resolvers } from '../../generated/graphql.ts';
import { conversationView } from './conversations.ts';

export const chatResolvers: Resolvers = {
  Query: {
    conversations: async (_parent, { chatbotId }, ctx) => {
      const { conversations } = await ctx.clients.chat.listConversations({ ownerId: (await ctx.member()).ownerId, chatbotId });
      return conversations.map(conversationView);
    },
    conversation: async (_parent, { chatbotId, id }, ctx) => {
      const { conversation } = await ctx.clients.chat.getConversation({
        ownerId: (await ctx.member()).ownerId,
        chatbotId,
        conversationId: id,
      });
      return conversationView(conversation);
    },
  },
};
