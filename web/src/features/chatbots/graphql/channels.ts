import { graphql } from '../../../gql';

export const ChannelConnectionsQuery = graphql(`
  query ChannelConnections($chatbotId: ID!) {
    channelConnections(chatbotId: $chatbotId) {
      id
      channel
      status
      lastError
      tokenLastFour
      botName
      lastChatId
      createdAt
      accountId
      webhookUrl
      addedToSlack
    }
  }
`);

export const ChannelDeliveriesQuery = graphql(`
  query ChannelDeliveries($connectionId: ID!) {
    channelDeliveries(connectionId: $connectionId) {
      id
      chatId
      kind
      status
      attempts
      lastError
      createdAt
    }
  }
`);

export const ChannelSkippedMessagesQuery = graphql(`
  query ChannelSkippedMessages($connectionId: ID!) {
    channelSkippedMessages(connectionId: $connectionId) {
      contact
      reason
      receivedAt
    }
  }
`);

export const ConnectChannelMutation = graphql(`
  mutation ConnectChannel($chatbotId: ID!, $channel: String!, $token: String!, $signingSecret: String) {
    connectChannel(chatbotId: $chatbotId, channel: $channel, token: $token, signingSecret: $signingSecret) {
      id
    }
  }
`);

export const ConnectMetaChannelMutation = graphql(`
  mutation ConnectMetaChannel(
    $chatbotId: ID!
    $channel: String!
    $token: String!
    $appSecret: String!
    $accountId: String!
    $businessAccountId: String
  ) {
    connectChannel(
      chatbotId: $chatbotId
      channel: $channel
      token: $token
      appSecret: $appSecret
      accountId: $accountId
      businessAccountId: $businessAccountId
    ) {
      id
      webhookUrl
      verifyToken
    }
  }
`);

export const ConnectSmsMutation = graphql(`
  mutation ConnectSms($chatbotId: ID!, $token: String!, $accountId: String!, $phoneNumber: String!) {
    connectChannel(chatbotId: $chatbotId, channel: "sms", token: $token, accountId: $accountId, phoneNumber: $phoneNumber) {
      id
    }
  }
`);

export const DisconnectChannelMutation = graphql(`
  mutation DisconnectChannel($connectionId: ID!) {
    disconnectChannel(connectionId: $connectionId)
  }
`);

export const SendChannelTestMessageMutation = graphql(`
  mutation SendChannelTestMessage($connectionId: ID!, $chatId: String) {
    sendChannelTestMessage(connectionId: $connectionId, chatId: $chatId) {
      id
      status
      lastError
    }
  }
`);
