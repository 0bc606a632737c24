import { graphql } from '../../../gql';

export const KnowledgeBaseFieldsFragment = graphql(`
  fragment KnowledgeBaseFields on KnowledgeBase {
    text
    textEntries {
      ...TextEntryFields
    }
  }
`);
