// GraphQL counterparts of /api/chatbot/{id}/unanswered-questions: the same views and calls, the same
// rules (the chat service's).
import type { Resolvers } from '../../generated/graphql.ts';
import { answerUnansweredQuestion, dismissUnansweredQuestion, listUnansweredQuestions } from './unanswered-questions.ts';

export const unansweredQuestionResolvers: Resolvers = {
  Query: {
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
