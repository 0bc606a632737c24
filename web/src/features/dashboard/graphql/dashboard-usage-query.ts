import { graphql } from '../../../gql';

// The current month's usage: the Usage Statistics card and each chatbot's cost this month.
export const DashboardUsageQuery = graphql(`
  query DashboardUsage($startDate: DateTime!, $endDate: DateTime!) {
    usage(startDate: $startDate, endDate: $endDate) {
      currentCreditBalance
      overallUsage {
        totalCost
      }
      usageByChatbot {
        chatbotId
        totalCost
      }
    }
  }
`);
