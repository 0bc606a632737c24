import { graphql } from '../../../gql';

export const CreateWebhookEndpointMutation = graphql(`
  mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
    createWebhookEndpoint(input: $input) {
      secret
      endpoint {
        ...WebhookEndpointFields
      }
    }
  }
`);

export const UpdateWebhookEndpointMutation = graphql(`
  mutation UpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {
    updateWebhookEndpoint(id: $id, input: $input) {
      ...WebhookEndpointFields
    }
  }
`);

export const DeleteWebhookEndpointMutation = graphql(`
  mutation DeleteWebhookEndpoint($id: ID!) {
    deleteWebhookEndpoint(id: $id)
  }
`);

export const RollWebhookSecretMutation = graphql(`
  mutation RollWebhookSecret($id: ID!) {
    rollWebhookSecret(id: $id) {
      secret
    }
  }
`);

export const RedeliverWebhookMutation = graphql(`
  mutation RedeliverWebhook($endpointId: ID!, $deliveryId: ID!) {
    redeliverWebhook(endpointId: $endpointId, deliveryId: $deliveryId) {
      ...WebhookDeliveryFields
    }
  }
`);

export const SendTestWebhookMutation = graphql(`
  mutation SendTestWebhook($endpointId: ID!, $eventType: String) {
    sendTestWebhook(endpointId: $endpointId, eventType: $eventType) {
      ...WebhookDeliveryFields
    }
  }
`);
