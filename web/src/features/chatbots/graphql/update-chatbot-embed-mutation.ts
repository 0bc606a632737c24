import { graphql } from '../../../gql';

// One Embed card's save (only its changed fields are sent); the summary comes back too, so Last Updated follows.
export const UpdateChatbotEmbedMutation = graphql(`
  mutation UpdateChatbotEmbed($id: ID!, $input: UpdateChatbotInput!) {
    updateChatbot(id: $id, input: $input) {
      ...ChatbotSummary
      ...ChatbotEmbed
    }
  }
`);
