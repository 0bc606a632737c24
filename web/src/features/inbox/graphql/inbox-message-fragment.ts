import { graphql } from '../../../gql';

export const InboxMessageFieldsFragment = graphql(`
  fragment InboxMessageFields on InboxMessage {
    id
    role
    content
    authorName
    timestamp
    sources {
      entryId
      title
      url
    }
    model {
      id
      displayName
    }
    fallback
  }
`);
