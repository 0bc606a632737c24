import { graphql } from '../../../gql';

export const IdentityVerificationQuery = graphql(`
  query IdentityVerification($chatbotId: ID!) {
    identityVerification(chatbotId: $chatbotId) {
      enabled
      createdAt
    }
  }
`);

export const CreateIdentitySecretMutation = graphql(`
  mutation CreateIdentitySecret($chatbotId: ID!) {
    createIdentitySecret(chatbotId: $chatbotId) {
      secret
      createdAt
    }
  }
`);
