import { graphql } from '../../../gql';

export const MySessionsQuery = graphql(`
  query MySessions {
    mySessions {
      id
      createdAt
      expiresAt
      clientIp
      current
    }
  }
`);
