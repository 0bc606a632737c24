import { graphql } from '../../../gql';

export const ChatbotsQuery = graphql(`
  query Chatbots {
    chatbots {
      ...ChatbotSummary
    }
  }
`);
