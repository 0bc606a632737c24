import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { DismissUnansweredQuestionMutation } from '../graphql/dismiss-unanswered-question-mutation';
import { useCountDownOpenUnanswered } from './use-count-down-open-unanswered';

export const DISMISS_UNANSWERED_FAILED_MESSAGE = 'Failed to dismiss the question';

/** Sets a group of unanswered questions aside without answering it. */
export function useDismissUnansweredQuestion(chatbotId: string) {
  const [mutate, { loading }] = useMutation(DismissUnansweredQuestionMutation);
  const [error, setError] = useState<string | null>(null);
  const countDown = useCountDownOpenUnanswered(chatbotId);

  async function dismissQuestion(id: string): Promise<boolean> {
    if (loading) return false;
    setError(null);
    try {
      await mutate({
        variables: { chatbotId, id },
        update(cache, { data }) {
          if (data && data.dismissUnansweredQuestion.status !== 'open') countDown(cache);
        },
      });
      return true;
    } catch (failure) {
      setError(userFacingErrorMessage(failure, DISMISS_UNANSWERED_FAILED_MESSAGE));
      return false;
    }
  }

  return { dismissQuestion, loading, error };
}
