import { graphql } from '../../../gql';

export const SignOutOtherSessionsMutation = graphql(`
  mutation SignOutOtherSessions {
    signOutOtherSessions
  }
`);
