import { useMutation, useQuery } from '@apollo/client/react';
import { ProviderKeysQuery } from '../graphql/provider-keys-query';
import { RemoveProviderKeyMutation } from '../graphql/remove-provider-key-mutation';
import { SetProviderKeyMutation } from '../graphql/set-provider-key-mutation';
import { useAction } from '../../../lib/use-action';

export const SAVE_KEY_FAILED_MESSAGE = 'Could not save the key. Please try again.';
export const REMOVE_KEY_FAILED_MESSAGE = 'Could not remove the key. Please try again.';

/** The workspace's own provider keys as shown: provider, last four characters, when saved. */
export function useProviderKeys() {
  const { data, loading, error } = useQuery(ProviderKeysQuery, { fetchPolicy: 'network-only' });
  return { keys: data?.providerKeys ?? [], loading: loading && !data, failed: Boolean(error) };
}

/** Saves a key (the provider checks it first; its refusal is the error shown). The key is never kept. */
export function useSetProviderKey() {
  const [mutate] = useMutation(SetProviderKeyMutation, { refetchQueries: [ProviderKeysQuery] });
  return useAction(async (provider: string, key: string) => {
    await mutate({ variables: { provider, key } });
  }, SAVE_KEY_FAILED_MESSAGE);
}

export function useRemoveProviderKey() {
  const [mutate] = useMutation(RemoveProviderKeyMutation, { refetchQueries: [ProviderKeysQuery] });
  return useAction(async (provider: string) => {
    await mutate({ variables: { provider } });
  }, REMOVE_KEY_FAILED_MESSAGE);
}
