import { graphql } from '../../../gql';

// The workspace's leads, newest first, a page at a time (docs/product.md, Leads).
export const LeadsQuery = graphql(`
  query Leads($chatbotId: ID, $startDate: String, $endDate: String, $after: String, $first: Int) {
    leads(chatbotId: $chatbotId, startDate: $startDate, endDate: $endDate, after: $after, first: $first) {
      leads {
        id
        chatbotId
        conversationId
        name
        email
        phone
        consented
        consentText
        source
        createdAt
        channel
        channelContact
      }
      nextCursor
    }
  }
`);
