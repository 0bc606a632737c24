import { graphql } from '../../../gql';

export const ChatbotAnalyticsQuery = graphql(`
  query ChatbotAnalytics($chatbotId: ID!, $startDate: String, $endDate: String) {
    analytics(chatbotId: $chatbotId, startDate: $startDate, endDate: $endDate) {
      ...AnalyticsFields
    }
  }
`);
