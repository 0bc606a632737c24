// The billing half of a User resolves only when asked for, from one GetAccount call per request: the
// plan and credit of the workspace the request acts in (owners.ts accountOwner).
import type { Resolvers } from '../../generated/graphql.ts';
import { isoDate } from '../../http/dates.ts';
import { subscriptionOf, usageOf } from '../../access/users.ts';

export const userResolvers: Resolvers = {
  User: {
    createdAt: (user) => isoDate(user.createdAt) ?? new Date(0).toISOString(),
    subscription: async (user, _args, ctx) => subscriptionOf(await ctx.accountOf(user)),
    usage: async (user, _args, ctx) => usageOf(await ctx.accountOf(user)),
  },
};
