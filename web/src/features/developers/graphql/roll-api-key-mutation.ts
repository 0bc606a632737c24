import { graphql } from '../../../gql';

export const RollApiKeyMutation = graphql(`
  mutation RollApiKey($id: ID!, $overlap: ApiKeyRollOverlap!) {
    rollApiKey(id: $id, overlap: $overlap) {
      secret
      apiKey {
        ...ApiKeyFields
      }
    }
  }
`);
