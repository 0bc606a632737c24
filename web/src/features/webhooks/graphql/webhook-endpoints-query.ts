import { graphql } from '../../../gql';

/** The endpoints with their newest delivery, and the catalogue the forms offer. */
export const WebhookEndpointsQuery = graphql(`
  query WebhookEndpoints {
    webhookEndpoints {
      ...WebhookEndpointFields
      lastDelivery {
        ...WebhookDeliveryFields
      }
    }
    webhookEventTypes {
      type
      description
    }
  }
`);
