import { graphql } from '../../../gql';

// The Model card's save; the summary comes back too, so Last Updated follows.
export const UpdateChatbotModelMutation = graphql(`
  mutation UpdateChatbotModel($id: ID!, $input: UpdateChatbotInput!) {
    updateChatbot(id: $id, input: $input) {
      ...ChatbotSummary
      ...ChatbotModelSettings
    }
  }
`);
