// GraphQL counterparts of /api/auth/*: the same session calls, the same messages.
import type { Resolvers } from '../../generated/graphql.ts';
import { authenticate, completeTwoFactorLogin, login, logout, register } from '../../access/sessions.ts';

export const authResolvers: Resolvers = {
  Query: {
    me: (_parent, _args, ctx) => authenticate(ctx.clients, ctx.token),
  },
  Mutation: {
    register: (_parent, { input }, ctx) => register(ctx.clients, { ...input, clientIp: ctx.clientIp }),
    login: async (_parent, { input }, ctx) => {
      const outcome = await login(ctx.clients, { ...input, clientIp: ctx.clientIp });
      if ('twoFactorChallenge' in outcome) return outcome;
      // The user's plan and credit are those of the workspace the new session acts in.
      ctx.signedIn(outcome.user, outcome.token);
      return outcome;
    },
    completeTwoFactorLogin: async (_parent, { input }, ctx) => {
      const signedIn = await completeTwoFactorLogin(ctx.clients, { ...input, clientIp: ctx.clientIp });
      ctx.signedIn(signedIn.user, signedIn.token);
      return signedIn;
    },
    logout: async (_parent, _args, ctx) => {
      await logout(ctx.clients, ctx.token);
      return true;
    },
  },
};
