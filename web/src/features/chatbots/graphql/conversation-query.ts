import { graphql } from '../../../gql';

export const ConversationQuery = graphql(`
  query Conversation($chatbotId: ID!, $id: ID!) {
    conversation(chatbotId: $chatbotId, id: $id) {
      id
      sessionId
      createdAt
      updatedAt
      userIp
      userAgent
      visitorId
      visitorName
      verifiedUserId
      verifiedEmail
      messageCount
      messages {
        id
        role
        content
        authorName
        timestamp
        rating
        sources {
          entryId
          title
          url
        }
        model {
          id
          displayName
        }
        fallback
      }
    }
  }
`);
