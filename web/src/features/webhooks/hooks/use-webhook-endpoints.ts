import { useQuery } from '@apollo/client/react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { WebhookEndpointsQuery } from '../graphql/webhook-endpoints-query';

export const LOAD_WEBHOOKS_FAILED_MESSAGE = 'Could not load the webhook endpoints.';

/** The current workspace's endpoints with their newest delivery, and the event catalogue (owners and admins). */
export function useWebhookEndpoints(allowed: boolean) {
  const { data, loading, error } = useQuery(WebhookEndpointsQuery, { fetchPolicy: 'cache-and-network', skip: !allowed });
  return {
    endpoints: data?.webhookEndpoints ?? [],
    eventTypes: data?.webhookEventTypes ?? [],
    loading: loading && !data,
    error: error ? userFacingErrorMessage(error, LOAD_WEBHOOKS_FAILED_MESSAGE) : null,
  };
}
