import { useQuery } from '@apollo/client/react';
import { useEffect, useState } from 'react';
import { startOfMonth } from '../../../lib/calendar-month';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { DashboardUsageQuery } from '../graphql/dashboard-usage-query';

/**
 * This calendar month's usage, from its first day (00:00 local) to now, asked afresh each time the
 * dashboard opens. A failure is only logged (docs/product.md, Dashboard): loading ends and the card stays away.
 */
export function useMonthlyUsage() {
  // Fixed at mount: a new "now" on every render would be a new query on every render.
  const [variables] = useState(() => {
    const now = new Date();
    return { startDate: startOfMonth(now).toISOString(), endDate: now.toISOString() };
  });
  const { data, loading, error, refetch } = useQuery(DashboardUsageQuery, { variables, fetchPolicy: 'network-only' });

  useEffect(() => {
    if (error) console.error('Failed to load usage statistics', graphqlErrorMessage(error) ?? error);
  }, [error]);

  return {
    usage: data?.usage ?? null,
    loading: loading && !data,
    refetch: () => void refetch().catch(() => undefined),
  };
}
