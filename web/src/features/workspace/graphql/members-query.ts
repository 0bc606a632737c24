import { graphql } from '../../../gql';

export const MembersQuery = graphql(`
  query Members {
    members {
      userId
      email
      name
      role
      joinedAt
    }
  }
`);
