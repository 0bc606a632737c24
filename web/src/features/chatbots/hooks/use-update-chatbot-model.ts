import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import type { ChatbotModelSettingsFragment } from '../../../gql/graphql';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useFlashMessage } from '../../../lib/use-flash-message';
import { UpdateChatbotModelMutation } from '../graphql/update-chatbot-model-mutation';
import { CHATBOT_UPDATED_MESSAGE, UPDATE_CHATBOT_FAILED_MESSAGE } from './use-update-chatbot';

/** Saves the Model card; the answer replaces the chatbot's model in the cache. */
export function useUpdateChatbotModel(chatbotId: string) {
  const store = useChatbots();
  const [mutate, { loading }] = useMutation(UpdateChatbotModelMutation);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();

  async function save(input: { modelId?: string; fallbackModelId?: string }): Promise<ChatbotModelSettingsFragment | null> {
    setError(null);
    success.clear();
    try {
      const { data } = await mutate({ variables: { id: chatbotId, input } });
      if (!data) throw new Error('empty updateChatbot response');
      const saved = data.updateChatbot;
      store.update({ id: saved.id, updatedAt: saved.updatedAt });
      success.show(CHATBOT_UPDATED_MESSAGE);
      return saved;
    } catch (failure) {
      setError(graphqlErrorMessage(failure) ?? UPDATE_CHATBOT_FAILED_MESSAGE);
      return null;
    }
  }

  return { save, loading, error, success: success.message };
}
