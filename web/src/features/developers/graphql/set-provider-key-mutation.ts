import { graphql } from '../../../gql';

export const SetProviderKeyMutation = graphql(`
  mutation SetProviderKey($provider: String!, $key: String!) {
    setProviderKey(provider: $provider, key: $key) {
      provider
      lastFour
      createdAt
    }
  }
`);
