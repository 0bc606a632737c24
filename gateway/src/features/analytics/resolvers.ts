// GraphQL counterparts of /api/chatbot/{id}/analytics, /api/analytics/summary and
// /api/chatbot/{id}/unanswered-questions: the same views and calls, the same rules (the chat service's).
import type { Resolvers } from '../../generated/graphql.ts';
import { loadAnalyticsSummary, loadChatbotAnalytics } from './analytics.ts';
import {
  answerUnansweredQuestion,
  dismissUnansweredQuestion,
  listUnansweredQuestions,
} from '../unanswered-questions/unanswered-questions.ts';

export const insightResolvers: Resolvers = {
  Query: {
    analytics: async (_parent, { chatbotId, startDate, endDate }, ctx) =>
      loadChatbotAnalytics(ctx.clients, (await ctx.member()).ownerId, chatbotId, { startDate, endDate }),
    analyticsSummary: async (_parent, { startDate, endDate }, ctx) =>
      loadAnalyticsSummary(ctx.clients, (await ctx.member()).ownerId, { startDate, endDate }),
    unansweredQuestions: async (_parent, { chatbotId, status, reason }, ctx) =>
      listUnansweredQuestions(ctx.clients, { ownerId: (await ctx.member()).ownerId, chatbotId }, status ?? undefined, reason ?? undefined),
  },
  Mutation: {
    answerUnansweredQuestion: async (_parent, { chatbotId, id, answer, question }, ctx) =>
      answerUnansweredQuestion(
        ctx.clients,
        { ownerId: (await ctx.member()).ownerId, chatbotId },
        { questionId: id, answer, question: question ?? undefined },
      ),
    dismissUnansweredQuestion: async (_parent, { chatbotId, id }, ctx) =>
      dismissUnansweredQuestion(ctx.clients, { ownerId: (await ctx.member()).ownerId, chatbotId }, id),
  },
};
