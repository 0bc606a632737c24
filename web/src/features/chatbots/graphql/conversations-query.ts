import { graphql } from '../../../gql';

// The list leaves `messages` out: the server sends them empty here, and selecting them would
// overwrite a conversation's cached messages with an empty list.
export const ConversationsQuery = graphql(`
  query Conversations($chatbotId: ID!) {
    conversations(chatbotId: $chatbotId) {
      id
      sessionId
      createdAt
      updatedAt
      userIp
      visitorId
      visitorName
      verifiedUserId
      verifiedEmail
      messageCount
      channel
    }
  }
`);
