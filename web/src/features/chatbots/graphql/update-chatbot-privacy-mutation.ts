import { graphql } from '../../../gql';

// The Privacy card's save; the summary comes back too, so Last Updated follows.
export const UpdateChatbotPrivacyMutation = graphql(`
  mutation UpdateChatbotPrivacy($id: ID!, $input: UpdateChatbotInput!) {
    updateChatbot(id: $id, input: $input) {
      ...ChatbotSummary
      ...ChatbotPrivacy
    }
  }
`);
