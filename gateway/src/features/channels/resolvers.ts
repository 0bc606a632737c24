// GraphQL of a chatbot's messaging channels: the same calls as the REST twins (channels.ts).
import type { Resolvers } from '../../generated/graphql.ts';
import {
  connectChannel,
  disconnectChannel,
  listChannelConnections,
  listChannelDeliveries,
  listSkippedMessages,
  sendChannelTestMessage,
} from './channels.ts';

export const channelResolvers: Resolvers = {
  Query: {
    channelConnections: async (_parent, { chatbotId }, ctx) =>
      listChannelConnections(ctx.clients, await ctx.member(), chatbotId, ctx.publicUrl),
    channelDeliveries: async (_parent, { connectionId }, ctx) => listChannelDeliveries(ctx.clients, await ctx.member(), connectionId),
    channelSkippedMessages: async (_parent, { connectionId }, ctx) => listSkippedMessages(ctx.clients, await ctx.member(), connectionId),
  },
  Mutation: {
    connectChannel: async (
      _parent,
      { chatbotId, channel, token, signingSecret, appSecret, accountId, businessAccountId, phoneNumber },
      ctx,
    ) =>
      connectChannel(
        ctx.clients,
        await ctx.member(),
        { chatbotId, channel, token, signingSecret, appSecret, accountId, businessAccountId, phoneNumber },
        ctx.publicUrl,
      ),
    disconnectChannel: async (_parent, { connectionId }, ctx) => disconnectChannel(ctx.clients, await ctx.member(), connectionId),
    sendChannelTestMessage: async (_parent, { connectionId, chatId }, ctx) =>
      sendChannelTestMessage(ctx.clients, await ctx.member(), connectionId, chatId ?? ''),
  },
};
