import { useQuery } from '@apollo/client/react';
import { useMemo } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { UsageReportQuery } from '../graphql/usage-report-query';
import { usageRangeStart, type UsageRange } from '../usage-range';

export const LOAD_USAGE_FAILED_MESSAGE = 'Failed to load usage data';

/**
 * The owner's usage report for `range`, ending now. The instants are fixed when the range is
 * chosen (not on every render, which would ask again forever); choosing a range asks afresh.
 */
export function useUsageReport(range: UsageRange) {
  const period = useMemo(() => {
    const end = new Date();
    return { start: usageRangeStart(range, end), end };
  }, [range]);
  const { data, loading, error, refetch } = useQuery(UsageReportQuery, {
    variables: { startDate: period.start.toISOString(), endDate: period.end.toISOString() },
    fetchPolicy: 'network-only',
    notifyOnNetworkStatusChange: true,
  });
  return {
    report: loading ? undefined : data?.usage,
    period,
    loading,
    error: error && !loading ? (graphqlErrorMessage(error) ?? LOAD_USAGE_FAILED_MESSAGE) : null,
    retry: () => void refetch().catch(() => undefined),
  };
}
