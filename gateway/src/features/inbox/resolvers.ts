// The live inbox (docs/adr/0034-humans-in-the-loop.md): reads and an agent's actions, the chat
// service's calls through ../inbox.ts; the member's own mail switch is auth's (../workspaces/workspaces.ts).
import type { Resolvers } from '../../generated/graphql.ts';
import {
  addConversationNote,
  claimConversation,
  closeConversation,
  countWaiting,
  handBackConversation,
  loadInbox,
  loadInboxConversation,
  replyToConversation,
  summarizeConversation,
} from './inbox.ts';
import { setHandoffNotifications } from '../workspaces/workspaces.ts';

export const inboxResolvers: Resolvers = {
  Query: {
    inbox: async (_parent, { reason }, ctx) => loadInbox(ctx.clients, await ctx.member(), reason ?? undefined),
    inboxConversation: async (_parent, { id }, ctx) => loadInboxConversation(ctx.clients, await ctx.member(), id),
    inboxWaitingCount: async (_parent, _args, ctx) => countWaiting(ctx.clients, await ctx.member()),
  },
  Mutation: {
    claimConversation: async (_parent, { id }, ctx) => claimConversation(ctx.clients, await ctx.member(), id),
    replyToConversation: async (_parent, args, ctx) => replyToConversation(ctx.clients, await ctx.member(), args),
    addConversationNote: async (_parent, args, ctx) => addConversationNote(ctx.clients, await ctx.member(), args),
    handBackConversation: async (_parent, { id }, ctx) => handBackConversation(ctx.clients, await ctx.member(), id),
    closeConversation: async (_parent, { id }, ctx) => closeConversation(ctx.clients, await ctx.member(), id),
    summarizeConversation: async (_parent, { id }, ctx) => summarizeConversation(ctx.clients, await ctx.member(), id),
    setHandoffNotifications: async (_parent, { enabled }, ctx) => setHandoffNotifications(ctx.clients, await ctx.member(), enabled),
  },
};
