import { graphql } from '../../../gql';

// The signed-in user as the account page shows it: the session's fields, asked afresh (the plan may
// have changed in the billing portal), and when the account was created.
export const AccountDetailsQuery = graphql(`
  query AccountDetails {
    me {
      ...SessionUser
      createdAt
    }
  }
`);
