import { graphql } from '../../../gql';

// The Bot voice card's save; the summary comes back too, so Last Updated follows.
export const UpdateChatbotVoiceMutation = graphql(`
  mutation UpdateChatbotVoice($id: ID!, $input: UpdateChatbotInput!) {
    updateChatbot(id: $id, input: $input) {
      ...ChatbotSummary
      ...ChatbotVoice
    }
  }
`);
