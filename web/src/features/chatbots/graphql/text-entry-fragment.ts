import { graphql } from '../../../gql';

// Everything the Knowledge Base Content list shows about one entry: where it came from, whether it is
// ready, and for a website when it was last checked.
export const TextEntryFieldsFragment = graphql(`
  fragment TextEntryFields on TextEntry {
    id
    title
    content
    createdAt
    updatedAt
    source {
      type
      name
      url
    }
    status
    error
    question
    autoSync
    lastSyncedAt
    lastSyncChanged
  }
`);
