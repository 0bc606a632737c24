import { graphql } from '../../../gql';

export const SetRequireTwoFactorMutation = graphql(`
  mutation SetRequireTwoFactor($enabled: Boolean!) {
    setRequireTwoFactor(enabled: $enabled) {
      ...WorkspaceFields
    }
  }
`);
