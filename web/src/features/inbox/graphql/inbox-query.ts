import { graphql } from '../../../gql';

export const InboxQuery = graphql(`
  query Inbox {
    inbox {
      waiting {
        ...InboxItemFields
      }
      open {
        ...InboxItemFields
      }
    }
  }
`);
