import { graphql } from '../../../gql';

export const KnowledgeBaseFieldsFragment = graphql(`
  fragment KnowledgeBaseFields on KnowledgeBase {
    text
    textEntries {
      id
      title
      content
      createdAt
    }
  }
`);
