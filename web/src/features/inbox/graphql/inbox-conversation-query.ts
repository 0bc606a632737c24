import { graphql } from '../../../gql';

export const InboxConversationQuery = graphql(`
  query InboxConversation($id: ID!) {
    inboxConversation(id: $id) {
      item {
        ...InboxItemFields
      }
      sessionId
      messages {
        ...InboxMessageFields
      }
      summary
      lead {
        id
        name
        email
        phone
        consented
        source
        createdAt
        channel
        channelContact
      }
    }
  }
`);
