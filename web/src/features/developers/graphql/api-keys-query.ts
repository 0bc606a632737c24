import { graphql } from '../../../gql';

export const ApiKeysQuery = graphql(`
  query ApiKeys {
    apiKeys {
      ...ApiKeyFields
    }
  }
`);
