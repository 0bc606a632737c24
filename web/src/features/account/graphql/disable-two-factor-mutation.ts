import { graphql } from '../../../gql';

export const DisableTwoFactorMutation = graphql(`
  mutation DisableTwoFactor($input: TwoFactorConfirmationInput!) {
    disableTwoFactor(input: $input)
  }
`);
