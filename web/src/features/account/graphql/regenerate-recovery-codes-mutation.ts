import { graphql } from '../../../gql';

export const RegenerateRecoveryCodesMutation = graphql(`
  mutation RegenerateRecoveryCodes($input: TwoFactorConfirmationInput!) {
    regenerateRecoveryCodes(input: $input)
  }
`);
