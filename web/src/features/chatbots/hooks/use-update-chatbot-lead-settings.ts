import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import type { ChatbotLeadSettingsFragment, UpdateChatbotInput } from '../../../gql/graphql';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useFlashMessage } from '../../../lib/use-flash-message';
import { UpdateChatbotLeadSettingsMutation } from '../graphql/update-chatbot-lead-settings-mutation';
import { CHATBOT_UPDATED_MESSAGE, UPDATE_CHATBOT_FAILED_MESSAGE } from './use-update-chatbot';

/** Saves the Lead form or the Handoff to a person card; the answer replaces the chatbot in the cache. */
export function useUpdateChatbotLeadSettings(chatbotId: string) {
  const store = useChatbots();
  const [mutate, { loading }] = useMutation(UpdateChatbotLeadSettingsMutation);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();

  async function save(input: Pick<UpdateChatbotInput, 'leadForm' | 'handoff'>): Promise<ChatbotLeadSettingsFragment | null> {
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
