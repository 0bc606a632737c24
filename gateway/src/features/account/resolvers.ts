// GraphQL counterparts of the account page and password reset: the same calls as REST (./account.ts).
import {
  billingPortalUrl,
  changeEmail,
  changePassword,
  confirmTwoFactorEnrolment,
  deleteAccount,
  disableTwoFactor,
  regenerateRecoveryCodes,
  startTwoFactorEnrolment,
  twoFactorStatus,
  listSessions,
  requestPasswordReset,
  resetPassword,
  signOutOtherSessions,
  updateProfile,
} from './account.ts';
import type { Resolvers } from '../../generated/graphql.ts';

export const accountResolvers: Resolvers = {
  Query: {
    mySessions: (_parent, _args, ctx) => listSessions(ctx.clients, ctx),
    myTwoFactor: (_parent, _args, ctx) => twoFactorStatus(ctx.clients, ctx),
  },
  Mutation: {
    requestPasswordReset: (_parent, { email }, ctx) => requestPasswordReset(ctx.clients, { email, clientIp: ctx.clientIp }),
    resetPassword: (_parent, { input }, ctx) => resetPassword(ctx.clients, input),
    updateProfile: (_parent, { name }, ctx) => updateProfile(ctx.clients, ctx, name),
    changeEmail: (_parent, { input }, ctx) => changeEmail(ctx.clients, ctx, input),
    changePassword: (_parent, { input }, ctx) => changePassword(ctx.clients, ctx, input),
    signOutOtherSessions: (_parent, _args, ctx) => signOutOtherSessions(ctx.clients, ctx),
    deleteAccount: async (_parent, { password }, ctx) => {
      await deleteAccount(ctx.clients, ctx, password);
      return true;
    },
    startTwoFactorEnrolment: (_parent, _args, ctx) => startTwoFactorEnrolment(ctx.clients, ctx),
    confirmTwoFactorEnrolment: (_parent, { code }, ctx) => confirmTwoFactorEnrolment(ctx.clients, ctx, code),
    disableTwoFactor: async (_parent, { input }, ctx) => {
      await disableTwoFactor(ctx.clients, ctx, input);
      return true;
    },
    regenerateRecoveryCodes: (_parent, { input }, ctx) => regenerateRecoveryCodes(ctx.clients, ctx, input),
    createBillingPortalSession: async (_parent, _args, ctx) => billingPortalUrl(ctx.clients, await ctx.member(), ctx.publicUrl),
  },
};
