import { skipToken, useQuery } from '@apollo/client/react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { UnansweredQuestionsQuery } from '../graphql/unanswered-questions-query';

export const LOAD_UNANSWERED_FAILED_MESSAGE = 'Failed to load unanswered questions';

/**
 * The chatbot's open groups of unanswered questions, most asked first (Pro only, like the list on the
 * server). A group answered or dismissed here stays in the list, marked, until the next load.
 */
export function useUnansweredQuestions(chatbotId: string, enabled: boolean) {
  const { data, loading, error, refetch } = useQuery(
    UnansweredQuestionsQuery,
    enabled ? { variables: { chatbotId, status: 'open' }, fetchPolicy: 'cache-and-network' } : skipToken,
  );
  return {
    questions: data?.unansweredQuestions ?? [],
    loading: loading && !data,
    error: error && !data ? userFacingErrorMessage(error, LOAD_UNANSWERED_FAILED_MESSAGE) : null,
    retry: () => void refetch().catch(() => undefined),
  };
}
