import { useQuery } from '@apollo/client/react';
import { useEffect } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { BillingOptionsQuery } from '../graphql/billing-options-query';

/** What a top-up adds and whether checkout is in test mode; null until known (or when it failed, only logged). */
export function useBillingOptions() {
  const { data, error } = useQuery(BillingOptionsQuery);
  useEffect(() => {
    if (error) console.error('Failed to load billing options', graphqlErrorMessage(error) ?? error);
  }, [error]);
  return data?.billingOptions ?? null;
}
