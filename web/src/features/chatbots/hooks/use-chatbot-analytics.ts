import { skipToken, useQuery } from '@apollo/client/react';
import { useMemo } from 'react';
import { analyticsRangeDates, type AnalyticsRange } from '../../../lib/analytics/analytics-range';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { ChatbotAnalyticsQuery } from '../graphql/chatbot-analytics-query';

export const LOAD_ANALYTICS_FAILED_MESSAGE = 'Failed to load analytics';

/**
 * The chatbot's analytics for `range`, asked for once the Analytics tab is opened. The days are
 * fixed when the range is chosen; while another range loads, the previous figures stay (dimmed by
 * the tab) rather than the page jumping to a spinner.
 */
export function useChatbotAnalytics(chatbotId: string, range: AnalyticsRange, enabled: boolean) {
  const dates = useMemo(() => analyticsRangeDates(range, new Date()), [range]);
  const { data, previousData, loading, error, refetch } = useQuery(
    ChatbotAnalyticsQuery,
    enabled ? { variables: { chatbotId, ...dates }, fetchPolicy: 'cache-and-network', notifyOnNetworkStatusChange: true } : skipToken,
  );
  const analytics = data?.analytics ?? (loading ? previousData?.analytics : undefined);
  return {
    analytics: analytics ?? null,
    dates,
    loading: loading && !analytics,
    refreshing: loading && Boolean(analytics),
    error: error && !loading ? userFacingErrorMessage(error, LOAD_ANALYTICS_FAILED_MESSAGE) : null,
    retry: () => void refetch().catch(() => undefined),
  };
}
