import { graphql } from '../../../gql';

export const ApiKeyFieldsFragment = graphql(`
  fragment ApiKeyFields on ApiKey {
    id
    name
    scopes
    chatbotIds
    prefix
    lastFour
    createdByEmail
    createdAt
    expiresAt
    revokedAt
    lastUsedAt
    previousSecretExpiresAt
  }
`);
