import { useQuery } from '@apollo/client/react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { MembersQuery } from '../graphql/members-query';

export const LOAD_MEMBERS_FAILED_MESSAGE = 'Could not load the members.';

/** The current workspace's members. */
export function useMembers() {
  const { data, loading, error } = useQuery(MembersQuery, { fetchPolicy: 'cache-and-network' });
  return {
    members: data?.members ?? [],
    loading: loading && !data,
    error: error ? userFacingErrorMessage(error, LOAD_MEMBERS_FAILED_MESSAGE) : null,
  };
}
