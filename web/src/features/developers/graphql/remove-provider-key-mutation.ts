import { graphql } from '../../../gql';

export const RemoveProviderKeyMutation = graphql(`
  mutation RemoveProviderKey($provider: String!) {
    removeProviderKey(provider: $provider)
  }
`);
