import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import type { Language } from '../../../gql/graphql';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useFlashMessage } from '../../../lib/use-flash-message';
import { UpdateChatbotMutation } from '../graphql/update-chatbot-mutation';

export const UPDATE_CHATBOT_FAILED_MESSAGE = 'Failed to update chatbot';
export const CHATBOT_UPDATED_MESSAGE = 'Chatbot updated successfully';
export const CHATBOT_NAME_REQUIRED_MESSAGE = 'Name is required';

export interface BasicSettings {
  name: string;
  language: Language;
  isActive: boolean;
}

/** Saves the Basic Settings; the cache and the list pick up the answer, so nothing is refetched. */
export function useUpdateChatbot(chatbotId: string) {
  const store = useChatbots();
  const [mutate, { loading }] = useMutation(UpdateChatbotMutation);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();

  async function updateChatbot(settings: BasicSettings): Promise<boolean> {
    const name = settings.name.trim();
    success.clear();
    if (!name) {
      setError(CHATBOT_NAME_REQUIRED_MESSAGE);
      return false;
    }
    setError(null);
    try {
      const { data } = await mutate({
        variables: { id: chatbotId, input: { name, language: settings.language, isActive: settings.isActive } },
      });
      if (!data) throw new Error('empty updateChatbot response');
      store.update(data.updateChatbot);
      success.show(CHATBOT_UPDATED_MESSAGE);
      return true;
    } catch (failure) {
      setError(graphqlErrorMessage(failure) ?? UPDATE_CHATBOT_FAILED_MESSAGE);
      return false;
    }
  }

  return { updateChatbot, loading, error, success: success.message };
}
