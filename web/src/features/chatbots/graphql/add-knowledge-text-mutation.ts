import { graphql } from '../../../gql';

export const AddKnowledgeTextMutation = graphql(`
  mutation AddKnowledgeText($chatbotId: ID!, $text: String!) {
    addKnowledgeText(chatbotId: $chatbotId, text: $text) {
      ...KnowledgeBaseFields
    }
  }
`);
