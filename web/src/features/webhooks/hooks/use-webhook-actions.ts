import { useMutation } from '@apollo/client/react';
import {
  CreateWebhookEndpointMutation,
  DeleteWebhookEndpointMutation,
  RedeliverWebhookMutation,
  RollWebhookSecretMutation,
  SendTestWebhookMutation,
  UpdateWebhookEndpointMutation,
} from '../graphql/webhook-mutations';
import { WebhookEndpointsQuery } from '../graphql/webhook-endpoints-query';
import { useWebhookAction } from './use-webhook-action';

export const CREATE_FAILED_MESSAGE = 'Could not add the endpoint. Please try again.';
export const UPDATE_FAILED_MESSAGE = 'Could not change the endpoint. Please try again.';
export const DELETE_FAILED_MESSAGE = 'Could not delete the endpoint. Please try again.';
export const ROLL_FAILED_MESSAGE = 'Could not roll the secret. Please try again.';
export const REDELIVER_FAILED_MESSAGE = 'Could not redeliver. Please try again.';
export const SEND_TEST_FAILED_MESSAGE = 'Could not send the test event. Please try again.';

// The list shows each endpoint's newest delivery; an open log shows the new one too.
const refetchEndpoints = { refetchQueries: [{ query: WebhookEndpointsQuery }], awaitRefetchQueries: true };
const refetchAll = { refetchQueries: [{ query: WebhookEndpointsQuery }, 'WebhookDeliveries'], awaitRefetchQueries: true };

/** Adding an endpoint; resolves to its secret (shown once), or null when refused. */
export function useCreateWebhookEndpoint() {
  const [mutate] = useMutation(CreateWebhookEndpointMutation);
  const action = useWebhookAction(CREATE_FAILED_MESSAGE);
  async function create(input: { url: string; events: string[] }): Promise<string | null> {
    let secret: string | null = null;
    const ok = await action.run(async () => {
      const { data } = await mutate({ variables: { input }, ...refetchEndpoints });
      secret = data?.createWebhookEndpoint.secret ?? null;
    });
    return ok ? secret : null;
  }
  return { create, creating: action.busy, error: action.error, reset: action.reset };
}

/** Changing an endpoint's URL and events. */
export function useUpdateWebhookEndpoint() {
  const [mutate] = useMutation(UpdateWebhookEndpointMutation);
  const action = useWebhookAction(UPDATE_FAILED_MESSAGE);
  const update = (id: string, input: { url: string; events: string[] }) => action.run(() => mutate({ variables: { id, input } }));
  return { update, updating: action.busy, error: action.error };
}

/** Turning an endpoint on or off (on again clears its failure streak). */
export function useSetWebhookEnabled() {
  const [mutate] = useMutation(UpdateWebhookEndpointMutation);
  const action = useWebhookAction(UPDATE_FAILED_MESSAGE);
  const setEnabled = (id: string, enabled: boolean) => action.run(() => mutate({ variables: { id, input: { enabled } } }));
  return { setEnabled, saving: action.busy, error: action.error };
}

export function useDeleteWebhookEndpoint() {
  const [mutate] = useMutation(DeleteWebhookEndpointMutation);
  const action = useWebhookAction(DELETE_FAILED_MESSAGE);
  const remove = (id: string) => action.run(() => mutate({ variables: { id }, ...refetchEndpoints }));
  return { remove, deleting: action.busy, error: action.error, reset: action.reset };
}

/** A new secret; resolves to it (shown once), or null when refused. */
export function useRollWebhookSecret() {
  const [mutate] = useMutation(RollWebhookSecretMutation);
  const action = useWebhookAction(ROLL_FAILED_MESSAGE);
  async function roll(id: string): Promise<string | null> {
    let secret: string | null = null;
    const ok = await action.run(async () => {
      const { data } = await mutate({ variables: { id } });
      secret = data?.rollWebhookSecret.secret ?? null;
    });
    return ok ? secret : null;
  }
  return { roll, rolling: action.busy, error: action.error, reset: action.reset };
}

export function useSendTestWebhook() {
  const [mutate] = useMutation(SendTestWebhookMutation);
  const action = useWebhookAction(SEND_TEST_FAILED_MESSAGE);
  const send = (endpointId: string, eventType: string) => action.run(() => mutate({ variables: { endpointId, eventType }, ...refetchAll }));
  return { send, sending: action.busy, error: action.error, reset: action.reset };
}

export function useRedeliverWebhook() {
  const [mutate] = useMutation(RedeliverWebhookMutation);
  const action = useWebhookAction(REDELIVER_FAILED_MESSAGE);
  const redeliver = (endpointId: string, deliveryId: string) =>
    action.run(() => mutate({ variables: { endpointId, deliveryId }, ...refetchAll }));
  return { redeliver, redelivering: action.busy, error: action.error };
}
