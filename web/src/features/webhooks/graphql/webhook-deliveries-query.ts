import { graphql } from '../../../gql';

export const WebhookDeliveriesQuery = graphql(`
  query WebhookDeliveries($endpointId: ID!, $first: Int, $after: String) {
    webhookDeliveries(endpointId: $endpointId, first: $first, after: $after) {
      deliveries {
        ...WebhookDeliveryFields
      }
      nextCursor
    }
  }
`);
