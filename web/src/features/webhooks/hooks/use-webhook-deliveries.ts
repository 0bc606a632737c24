import { useQuery } from '@apollo/client/react';
import { useEffect, useState } from 'react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { WebhookDeliveriesQuery } from '../graphql/webhook-deliveries-query';

export const LOAD_DELIVERIES_FAILED_MESSAGE = 'Could not load the delivery log.';
export const DELIVERY_PAGE_SIZE = 20;
/** While a delivery of the first page is still pending, the log asks again this often, */
export const PENDING_POLL_MS = 2000;
/** for this long at most (a failing endpoint's retries wait minutes, then hours: Refresh shows them). */
export const PENDING_POLL_FOR_MS = 60_000;

/** An endpoint's deliveries, newest first, a page at a time ("Load more" passes the cursor as `after`). */
export function useWebhookDeliveries(endpointId: string) {
  const { data, loading, error, fetchMore, refetch, startPolling, stopPolling } = useQuery(WebhookDeliveriesQuery, {
    variables: { endpointId, first: DELIVERY_PAGE_SIZE },
    fetchPolicy: 'cache-and-network',
    notifyOnNetworkStatusChange: false,
  });
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<string | null>(null);
  const deliveries = data?.webhookDeliveries.deliveries ?? [];
  const pending = deliveries.some((d) => d.status === 'PENDING');

  // A test event or a redelivery is queued: follow it until it is answered or given up.
  useEffect(() => {
    if (!pending) return;
    startPolling(PENDING_POLL_MS);
    const giveUp = setTimeout(stopPolling, PENDING_POLL_FOR_MS);
    return () => {
      clearTimeout(giveUp);
      stopPolling();
    };
  }, [pending, startPolling, stopPolling]);

  async function loadMore(): Promise<void> {
    const after = data?.webhookDeliveries.nextCursor;
    if (!after) return;
    setLoadingMore(true);
    setMoreError(null);
    try {
      await fetchMore({
        variables: { endpointId, first: DELIVERY_PAGE_SIZE, after },
        updateQuery: (previous, { fetchMoreResult }) => ({
          webhookDeliveries: {
            ...fetchMoreResult.webhookDeliveries,
            deliveries: [...previous.webhookDeliveries.deliveries, ...fetchMoreResult.webhookDeliveries.deliveries],
          },
        }),
      });
    } catch (failure) {
      setMoreError(userFacingErrorMessage(failure, LOAD_DELIVERIES_FAILED_MESSAGE));
    } finally {
      setLoadingMore(false);
    }
  }

  return {
    deliveries,
    hasMore: Boolean(data?.webhookDeliveries.nextCursor),
    loading: loading && !data,
    error: error ? userFacingErrorMessage(error, LOAD_DELIVERIES_FAILED_MESSAGE) : moreError,
    loadMore,
    loadingMore,
    refresh: () => refetch(),
  };
}
