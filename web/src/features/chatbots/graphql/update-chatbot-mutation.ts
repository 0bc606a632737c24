import { graphql } from '../../../gql';

export const UpdateChatbotMutation = graphql(`
  mutation UpdateChatbot($id: ID!, $input: UpdateChatbotInput!) {
    updateChatbot(id: $id, input: $input) {
      ...ChatbotSummary
    }
  }
`);
