import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useFlashMessage } from '../../../lib/use-flash-message';
import { AddTextEntryMutation } from '../graphql/add-text-entry-mutation';
import { writeKnowledgeBase } from './write-knowledge-base';

export const ADD_TEXT_FAILED_MESSAGE = 'Failed to add text to knowledge base';
export const TEXT_ADDED_MESSAGE = 'Text added to knowledge base successfully';

/** Appends text to the chatbot's knowledge base and puts the new knowledge base in the cache. */
export function useAddTextEntry(chatbotId: string) {
  const [mutate, { loading }] = useMutation(AddTextEntryMutation);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();

  async function addText(text: string): Promise<boolean> {
    // docs/product.md, Knowledge base: an empty text is ignored, not answered with an error.
    if (!text.trim() || loading) return false;
    setError(null);
    success.clear();
    try {
      await mutate({
        variables: { chatbotId, text },
        update(cache, { data }) {
          if (data) writeKnowledgeBase(cache, chatbotId, data.addTextEntry);
        },
      });
      success.show(TEXT_ADDED_MESSAGE);
      return true;
    } catch (failure) {
      setError(graphqlErrorMessage(failure) ?? ADD_TEXT_FAILED_MESSAGE);
      return false;
    }
  }

  return { addText, loading, error, success: success.message };
}
