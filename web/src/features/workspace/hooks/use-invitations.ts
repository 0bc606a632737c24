import { useQuery } from '@apollo/client/react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { InvitationsQuery } from '../graphql/invitations-query';

export const LOAD_INVITATIONS_FAILED_MESSAGE = 'Could not load the pending invitations.';

/** The current workspace's pending invitations, newest first; only asked for by those who manage members. */
export function useInvitations(allowed: boolean) {
  const { data, loading, error } = useQuery(InvitationsQuery, { fetchPolicy: 'cache-and-network', skip: !allowed });
  return {
    invitations: data?.invitations ?? [],
    loading: loading && !data,
    error: error ? userFacingErrorMessage(error, LOAD_INVITATIONS_FAILED_MESSAGE) : null,
  };
}
