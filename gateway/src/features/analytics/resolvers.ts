// GraphQL counterparts of /api/chatbot/{id}/analytics and /api/analytics/summary: the same views and
// calls, the same rules (the chat service's).
import type { Resolvers } from '../../generated/graphql.ts';
import { loadAnalyticsSummary, loadChatbotAnalytics } from './analytics.ts';

export const analyticsResolvers: Resolvers = {
  Query: {
    analytics: async (_parent, { chatbotId, startDate, endDate }, ctx) =>
      loadChatbotAnalytics(ctx.clients, (await ctx.member()).ownerId, chatbotId, { startDate, endDate }),
    analyticsSummary: async (_parent, { startDate, endDate }, ctx) =>
      loadAnalyticsSummary(ctx.clients, (await ctx.member()).ownerId, { startDate, endDate }),
  },
};
