import { graphql } from '../../../gql';

export const DeleteKnowledgeEntryMutation = graphql(`
  mutation DeleteKnowledgeEntry($chatbotId: ID!, $entryId: ID!) {
    deleteKnowledgeEntry(chatbotId: $chatbotId, entryId: $entryId) {
      ...KnowledgeBaseFields
    }
  }
`);
