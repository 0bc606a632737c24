import { graphql } from '../../../gql';

export const ProviderKeysQuery = graphql(`
  query ProviderKeys {
    providerKeys {
      provider
      lastFour
      createdAt
    }
  }
`);
