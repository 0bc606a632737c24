import { useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { LeadsQuery } from '../graphql/leads-query';
import { leadsVariables, type LeadsFilter } from '../leads-filter';

export const LOAD_LEADS_FAILED_MESSAGE = 'Could not load the leads.';
export const LEADS_PAGE_SIZE = 50;

/** The workspace's leads, newest first, a page at a time ("Load more" passes the cursor as `after`). */
export function useLeads(filter: LeadsFilter, allowed: boolean) {
  const variables = { ...leadsVariables(filter), first: LEADS_PAGE_SIZE };
  const { data, loading, error, fetchMore } = useQuery(LeadsQuery, { variables, fetchPolicy: 'network-only', skip: !allowed });
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<string | null>(null);

  async function loadMore(): Promise<void> {
    const after = data?.leads.nextCursor;
    if (!after) return;
    setLoadingMore(true);
    setMoreError(null);
    try {
      await fetchMore({
        variables: { ...variables, after },
        updateQuery: (previous, { fetchMoreResult }) => ({
          leads: { ...fetchMoreResult.leads, leads: [...previous.leads.leads, ...fetchMoreResult.leads.leads] },
        }),
      });
    } catch (failure) {
      setMoreError(userFacingErrorMessage(failure, LOAD_LEADS_FAILED_MESSAGE));
    } finally {
      setLoadingMore(false);
    }
  }

  return {
    leads: data?.leads.leads ?? [],
    hasMore: Boolean(data?.leads.nextCursor),
    loading: loading && !data,
    error: error ? userFacingErrorMessage(error, LOAD_LEADS_FAILED_MESSAGE) : moreError,
    loadMore,
    loadingMore,
  };
}
