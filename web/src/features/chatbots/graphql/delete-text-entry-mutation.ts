import { graphql } from '../../../gql';

export const DeleteTextEntryMutation = graphql(`
  mutation DeleteTextEntry($chatbotId: ID!, $entryId: ID!) {
    deleteTextEntry(chatbotId: $chatbotId, entryId: $entryId) {
      ...KnowledgeBaseFields
    }
  }
`);
