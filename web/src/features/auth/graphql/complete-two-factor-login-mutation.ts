import { graphql } from '../../../gql';

export const CompleteTwoFactorLoginMutation = graphql(`
  mutation CompleteTwoFactorLogin($input: CompleteTwoFactorLoginInput!) {
    completeTwoFactorLogin(input: $input) {
      token
      user {
        ...SessionUser
      }
    }
  }
`);
