import { useQuery } from '@apollo/client/react';
import { useEffect } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { MySessionsQuery } from '../graphql/my-sessions-query';

export const SESSIONS_FAILED_MESSAGE = 'Could not load your devices. Please try again later.';

/** The devices signed in to this account, newest first, asked afresh each time the page opens. */
export function useMySessions() {
  const { data, loading, error } = useQuery(MySessionsQuery, { fetchPolicy: 'network-only' });

  useEffect(() => {
    if (error) console.error('Failed to load the signed-in devices', graphqlErrorMessage(error) ?? error);
  }, [error]);

  return {
    sessions: data?.mySessions ?? null,
    loading: loading && !data,
    error: error && !data ? SESSIONS_FAILED_MESSAGE : null,
  };
}
