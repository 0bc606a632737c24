import { graphql } from '../../../gql';

export const UsageReportQuery = graphql(`
  query UsageReport($startDate: DateTime!, $endDate: DateTime!) {
    usage(startDate: $startDate, endDate: $endDate) {
      subscription
      currentCreditBalance
      overallUsage {
        totalCost
        totalPromptCost
        totalCompletionCost
        totalTokens
        totalPromptTokens
        totalCompletionTokens
        totalRequests
      }
      recentRequests {
        requestId
        timestamp
        chatbot {
          _id
          name
        }
        model {
          displayName
        }
        promptTokens
        completionTokens
        totalTokens
        totalCost
        ownKey
      }
      recentRequestsLimit
      dailyUsage {
        date
        totalCost
        totalTokens
        requests
      }
      usageByChatbot {
        chatbotId
        name
        totalCost
        requests
      }
    }
  }
`);
