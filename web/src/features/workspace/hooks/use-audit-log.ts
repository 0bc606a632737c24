import { useQuery } from '@apollo/client/react';
import { useState } from 'react';
import type { AuditLogFilter } from '../../../gql/graphql';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { AuditLogQuery } from '../graphql/audit-log-query';

export const LOAD_AUDIT_LOG_FAILED_MESSAGE = 'Could not load the audit log.';
export const AUDIT_LOG_PAGE_SIZE = 50;

/** The current workspace's audit log, newest first, a page at a time ("Load more" passes the cursor as `after`). */
export function useAuditLog(filter: AuditLogFilter, allowed: boolean) {
  const { data, loading, error, fetchMore } = useQuery(AuditLogQuery, {
    variables: { filter, first: AUDIT_LOG_PAGE_SIZE },
    fetchPolicy: 'network-only',
    skip: !allowed,
  });
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<string | null>(null);

  async function loadMore(): Promise<void> {
    const after = data?.auditLog.nextCursor;
    if (!after) return;
    setLoadingMore(true);
    setMoreError(null);
    try {
      await fetchMore({
        variables: { filter, first: AUDIT_LOG_PAGE_SIZE, after },
        updateQuery: (previous, { fetchMoreResult }) => ({
          auditLog: {
            ...fetchMoreResult.auditLog,
            events: [...previous.auditLog.events, ...fetchMoreResult.auditLog.events],
          },
        }),
      });
    } catch (failure) {
      setMoreError(userFacingErrorMessage(failure, LOAD_AUDIT_LOG_FAILED_MESSAGE));
    } finally {
      setLoadingMore(false);
    }
  }

  return {
    events: data?.auditLog.events ?? [],
    hasMore: Boolean(data?.auditLog.nextCursor),
    loading: loading && !data,
    error: error ? userFacingErrorMessage(error, LOAD_AUDIT_LOG_FAILED_MESSAGE) : moreError,
    loadMore,
    loadingMore,
  };
}
