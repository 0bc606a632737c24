import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useFlashMessage } from '../../../lib/use-flash-message';
import { AddQaEntryMutation } from '../graphql/add-qa-entry-mutation';
import { writeTextEntryResult } from './write-text-entry-result';

export const QA_ADDED_MESSAGE = 'Q&A pair added';
export const ADD_QA_FAILED_MESSAGE = 'Failed to add Q&A pair';
/** The service's limit on a question (an answer's is the knowledge entry limit, checked there). */
export const MAX_QUESTION_CHARS = 500;

/** Adds an owner-written answer to a question; it is ready at once. */
export function useAddQaEntry(chatbotId: string) {
  const [mutate, { loading }] = useMutation(AddQaEntryMutation);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();

  async function addQa(question: string, answer: string): Promise<boolean> {
    if (!question.trim() || !answer.trim() || loading) return false;
    setError(null);
    success.clear();
    try {
      await mutate({
        variables: { chatbotId, question: question.trim(), answer: answer.trim() },
        update(cache, { data }) {
          if (data) writeTextEntryResult(cache, chatbotId, data.addQaEntry);
        },
      });
      success.show(QA_ADDED_MESSAGE);
      return true;
    } catch (failure) {
      setError(graphqlErrorMessage(failure) ?? ADD_QA_FAILED_MESSAGE);
      return false;
    }
  }

  return { addQa, loading, error, success: success.message };
}
