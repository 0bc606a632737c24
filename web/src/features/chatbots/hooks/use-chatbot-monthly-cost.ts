import { useQuery } from '@apollo/client/react';
import { useEffect, useState } from 'react';
import { endOfMonth, startOfMonth } from '../../../lib/calendar-month';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { ChatbotMonthlyCostQuery } from '../graphql/chatbot-monthly-cost-query';

/**
 * What the chatbot cost this calendar month (docs/product.md, Usage: first to last day of the month, with
 * chatbotId); the server totals the whole month, so a capped request list cannot undercount. Null
 * while loading or after a failure, which is only logged (docs/product.md, Messages).
 */
export function useChatbotMonthlyCost(chatbotId: string) {
  const [month] = useState(() => {
    const now = new Date();
    return { startDate: startOfMonth(now).toISOString(), endDate: endOfMonth(now).toISOString() };
  });
  const { data, loading, error } = useQuery(ChatbotMonthlyCostQuery, {
    variables: { chatbotId, ...month },
    fetchPolicy: 'cache-and-network',
  });

  useEffect(() => {
    if (error) console.error('Failed to load the chatbot cost', graphqlErrorMessage(error) ?? error);
  }, [error]);

  return { cost: data?.usage.overallUsage.totalCost ?? null, loading: loading && !data };
}
