import { graphql } from '../../../gql';

export const WebhookDeliveryFieldsFragment = graphql(`
  fragment WebhookDeliveryFields on WebhookDelivery {
    id
    endpointId
    eventType
    status
    attempts
    responseStatus
    durationMs
    responseExcerpt
    error
    test
    createdAt
    lastAttemptAt
    attemptLog {
      attemptedAt
      responseStatus
      durationMs
      error
    }
  }
`);

export const WebhookEndpointFieldsFragment = graphql(`
  fragment WebhookEndpointFields on WebhookEndpoint {
    id
    url
    events
    enabled
    disabledReason
    failingSince
    createdAt
  }
`);
