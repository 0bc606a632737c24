import { useQuery } from '@apollo/client/react';
import { useEffect } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { MyTwoFactorQuery } from '../graphql/my-two-factor-query';

export const TWO_FACTOR_STATUS_FAILED_MESSAGE = 'Could not load your two-factor sign-in. Please try again later.';

/** Whether two-factor sign-in is on, and how many recovery codes are left. */
export function useMyTwoFactor() {
  const { data, loading, error } = useQuery(MyTwoFactorQuery, { fetchPolicy: 'network-only' });

  useEffect(() => {
    if (error) console.error('Failed to load two-factor sign-in', graphqlErrorMessage(error) ?? error);
  }, [error]);

  return {
    status: data?.myTwoFactor ?? null,
    loading: loading && !data,
    error: error && !data ? TWO_FACTOR_STATUS_FAILED_MESSAGE : null,
  };
}
