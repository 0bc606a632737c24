import { graphql } from '../../../gql';

export const CreateChatbotMutation = graphql(`
  mutation CreateChatbot($input: CreateChatbotInput!) {
    createChatbot(input: $input) {
      ...ChatbotSummary
    }
  }
`);
