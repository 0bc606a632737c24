import { graphql } from '../../../gql';

export const LoginMutation = graphql(`
  mutation Login($input: LoginInput!) {
    login(input: $input) {
      token
      user {
        ...SessionUser
      }
      twoFactorChallenge
    }
  }
`);
