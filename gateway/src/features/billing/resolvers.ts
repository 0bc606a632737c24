// GraphQL counterparts of /api/user/usage and /api/payment/*: the same helpers, the same messages.
import type { Resolvers } from '../../generated/graphql.ts';
import { billingOptions, createCheckoutSession, createCustomer } from './checkout.ts';
import { loadUsageReport, parseUsageQuery } from '../usage/usage.ts';

export const billingResolvers: Resolvers = {
  Query: {
    usage: async (_parent, { startDate, endDate, chatbotId }, ctx) => {
      const owner = (await ctx.member()).ownerId;
      return loadUsageReport(ctx.clients, owner, parseUsageQuery({ startDate, endDate, chatbotId }));
    },
    billingOptions: (_parent, _args, ctx) => billingOptions(ctx.clients),
  },
  Mutation: {
    createCustomer: async (_parent, _args, ctx) => {
      await createCustomer(ctx.clients, await ctx.member());
      return true;
    },
    createCheckoutSession: async (_parent, { input }, ctx) => ({
      url: await createCheckoutSession(ctx.clients, await ctx.member(), input, ctx.publicUrl),
    }),
  },
};
