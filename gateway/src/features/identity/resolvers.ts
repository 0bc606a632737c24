// A chatbot's identity verification in the dashboard (docs/adr/0046-mcp-server-and-verified-visitors.md):
// thin calls to chat's GetIdentityVerification and CreateIdentitySecret. Chat owns the rules (the
// chatbot must be the workspace's; the secret is made, sealed and kept there); the gateway checks the
// permission (permissions.ts) and answers the new secret once, never logging it.
import { isoDate } from '../../http/dates.ts';
import type { Resolvers } from '../../generated/graphql.ts';

export const identityResolvers: Resolvers = {
  Query: {
    identityVerification: async (_parent, { chatbotId }, ctx) => {
      const res = await ctx.clients.chat.getIdentityVerification({ ownerId: (await ctx.member()).ownerId, chatbotId });
      return { enabled: res.enabled, createdAt: isoDate(res.createdAt) ?? null };
    },
  },
  Mutation: {
    createIdentitySecret: async (_parent, { chatbotId }, ctx) => {
      const res = await ctx.clients.chat.createIdentitySecret({ ownerId: (await ctx.member()).ownerId, chatbotId });
      return { secret: res.secret, createdAt: isoDate(res.createdAt) ?? new Date().toISOString() };
    },
  },
};
