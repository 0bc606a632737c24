import { useQuery } from '@apollo/client/react';
import { useEffect } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { MANAGE_API_KEYS } from '../api-keys';
import { ApiKeysQuery } from '../graphql/api-keys-query';
import { DevelopersQuery } from '../graphql/developers-query';

export const DEVELOPERS_FAILED_MESSAGE = 'Could not load the developer settings. Please try again later.';
export const API_KEYS_FAILED_MESSAGE = 'Could not load your API keys. Please try again later.';

/**
 * The workspace's permissions and the scopes, then its keys when the role may manage them (the
 * server's permissions decide, so the page never asks for what it would be refused).
 */
export function useDevelopers() {
  const base = useQuery(DevelopersQuery, { fetchPolicy: 'network-only' });
  const canManage = base.data?.currentWorkspace.permissions.includes(MANAGE_API_KEYS) ?? false;
  const keys = useQuery(ApiKeysQuery, { fetchPolicy: 'network-only', skip: !canManage });

  useEffect(() => {
    const error = base.error ?? keys.error;
    if (error) console.error('Failed to load the developer settings', graphqlErrorMessage(error) ?? error);
  }, [base.error, keys.error]);

  return {
    workspace: base.data?.currentWorkspace ?? null,
    scopes: base.data?.apiScopes ?? [],
    canManage,
    keys: keys.data?.apiKeys ?? null,
    loading: (base.loading && !base.data) || (canManage && keys.loading && !keys.data),
    error: base.error && !base.data ? DEVELOPERS_FAILED_MESSAGE : keys.error && !keys.data ? API_KEYS_FAILED_MESSAGE : null,
  };
}
