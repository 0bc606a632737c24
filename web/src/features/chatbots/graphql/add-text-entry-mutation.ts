import { graphql } from '../../../gql';

export const AddTextEntryMutation = graphql(`
  mutation AddTextEntry($chatbotId: ID!, $text: String!) {
    addTextEntry(chatbotId: $chatbotId, text: $text) {
      ...KnowledgeBaseFields
    }
  }
`);
