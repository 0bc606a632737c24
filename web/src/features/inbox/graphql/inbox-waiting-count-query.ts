import { graphql } from '../../../gql';

// The header's badge.
export const InboxWaitingCountQuery = graphql(`
  query InboxWaitingCount {
    inboxWaitingCount
  }
`);
