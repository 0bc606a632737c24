import { graphql } from '../../../gql';

// The answer of the mutations that add or change one entry: the entry and the knowledge base it is now part of.
export const TextEntryResultFieldsFragment = graphql(`
  fragment TextEntryResultFields on TextEntryResult {
    entry {
      ...TextEntryFields
    }
    knowledgeBase {
      ...KnowledgeBaseFields
    }
  }
`);
