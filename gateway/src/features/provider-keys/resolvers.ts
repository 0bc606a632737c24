// GraphQL counterparts of /api/workspace/provider-keys: the same calls (./provider-keys.ts).
import { listProviderKeys, removeProviderKey, setProviderKey } from './provider-keys.ts';
import type { Resolvers } from '../../generated/graphql.ts';

export const providerKeyResolvers: Resolvers = {
  Query: {
    providerKeys: async (_parent, _args, ctx) => listProviderKeys(ctx.clients, await ctx.member()),
  },
  Mutation: {
    setProviderKey: async (_parent, { provider, key }, ctx) => setProviderKey(ctx.clients, await ctx.member(), provider, key),
    removeProviderKey: async (_parent, { provider }, ctx) => removeProviderKey(ctx.clients, await ctx.member(), provider),
  },
};
