import { graphql } from '../../../gql';

// The answer of the mutations that add or change one entry: the entry and the knowledge base it is now part of.
export const KnowledgeEntryResultFieldsFragment = graphql(`
  fragment KnowledgeEntryResultFields on KnowledgeEntryResult {
    entry {
      ...TextEntryFields
    }
    knowledgeBase {
      ...KnowledgeBaseFields
    }
  }
`);
