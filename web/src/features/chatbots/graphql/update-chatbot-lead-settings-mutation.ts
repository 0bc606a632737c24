import { graphql } from '../../../gql';

// The Lead form and Handoff to a person cards' save; the summary comes back too, so Last Updated follows.
export const UpdateChatbotLeadSettingsMutation = graphql(`
  mutation UpdateChatbotLeadSettings($id: ID!, $input: UpdateChatbotInput!) {
    updateChatbot(id: $id, input: $input) {
      ...ChatbotSummary
      ...ChatbotLeadSettings
    }
  }
`);
