import { graphql } from '../../../gql';

// One chatbot's usage over a range; the detail page's Total Cost reads the range's total.
export const ChatbotMonthlyCostQuery = graphql(`
  query ChatbotMonthlyCost($chatbotId: ID!, $startDate: DateTime!, $endDate: DateTime!) {
    usage(startDate: $startDate, endDate: $endDate, chatbotId: $chatbotId) {
      overallUsage {
        totalCost
      }
    }
  }
`);
