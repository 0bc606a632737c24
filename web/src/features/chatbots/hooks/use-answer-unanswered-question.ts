import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { AnswerUnansweredQuestionMutation } from '../graphql/answer-unanswered-question-mutation';
import { useCountDownOpenUnanswered } from './use-count-down-open-unanswered';

export const ANSWER_UNANSWERED_FAILED_MESSAGE = 'Failed to save the answer';

/**
 * Answers a group of unanswered questions with one Q&A pair. The chatbot is asked for again
 * afterwards, so its knowledge list shows the new pair.
 */
export function useAnswerUnansweredQuestion(chatbotId: string) {
  const [mutate, { loading }] = useMutation(AnswerUnansweredQuestionMutation, { refetchQueries: ['Chatbot'] });
  const [error, setError] = useState<string | null>(null);
  const countDown = useCountDownOpenUnanswered(chatbotId);

  async function answerQuestion(id: string, question: string, answer: string): Promise<boolean> {
    if (!question.trim() || !answer.trim() || loading) return false;
    setError(null);
    try {
      await mutate({
        variables: { chatbotId, id, question: question.trim(), answer: answer.trim() },
        update(cache, { data }) {
          if (data && data.answerUnansweredQuestion.status !== 'open') countDown(cache);
        },
      });
      return true;
    } catch (failure) {
      setError(userFacingErrorMessage(failure, ANSWER_UNANSWERED_FAILED_MESSAGE));
      return false;
    }
  }

  return { answerQuestion, loading, error };
}
