import { useQuery } from '@apollo/client/react';
import { useEffect, useState } from 'react';
import { analyticsRangeDates } from '../../../lib/analytics/analytics-range';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { AnalyticsSummaryQuery } from '../graphql/analytics-summary-query';

/**
 * The last 30 days across all the owner's chatbots, asked afresh each time the dashboard opens. A
 * failure is only logged, like the usage statistics: the card stays away and the rest of the page works.
 */
export function useAnalyticsSummary() {
  // Fixed at mount: new dates on every render would be a new query on every render.
  const [variables] = useState(() => analyticsRangeDates('30d', new Date()));
  const { data, loading, error } = useQuery(AnalyticsSummaryQuery, { variables, fetchPolicy: 'network-only' });

  useEffect(() => {
    if (error) console.error('Failed to load the analytics summary', graphqlErrorMessage(error) ?? error);
  }, [error]);

  return { summary: data?.analyticsSummary ?? null, loading: loading && !data };
}
