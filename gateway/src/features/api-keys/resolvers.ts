// GraphQL counterparts of /api/workspace/api-keys and /api/api-scopes: the same calls (./api-keys.ts).
import { apiScopes, createApiKey, listApiKeys, overlapField, revokeApiKey, rollApiKey } from './api-keys.ts';
import type { Resolvers } from '../../generated/graphql.ts';

export const apiKeyResolvers: Resolvers = {
  Query: {
    apiKeys: async (_parent, _args, ctx) => listApiKeys(ctx.clients, await ctx.member()),
    apiScopes: () => apiScopes(),
  },
  Mutation: {
    createApiKey: async (_parent, { input }, ctx) => createApiKey(ctx.clients, await ctx.member(), input),
    rollApiKey: async (_parent, { id, overlap }, ctx) => rollApiKey(ctx.clients, await ctx.member(), id, overlapField(overlap)),
    revokeApiKey: async (_parent, { id }, ctx) => revokeApiKey(ctx.clients, await ctx.member(), id),
  },
};
