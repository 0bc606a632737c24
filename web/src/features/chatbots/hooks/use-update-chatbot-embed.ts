import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import type { ChatbotEmbedFragment, UpdateChatbotInput } from '../../../gql/graphql';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useFlashMessage } from '../../../lib/use-flash-message';
import { UpdateChatbotEmbedMutation } from '../graphql/update-chatbot-embed-mutation';
import { CHATBOT_UPDATED_MESSAGE, UPDATE_CHATBOT_FAILED_MESSAGE } from './use-update-chatbot';

export type EmbedInput = Pick<UpdateChatbotInput, 'appearance' | 'allowedDomains' | 'standalonePage' | 'limits'>;

/**
 * Saves one card of the Embed tab (each card has its own, so each shows its own outcome). The
 * cache picks up the answer, so the tab and the preview follow; the server's refusals (a free
 * owner hiding the badge, a host name it does not accept) are shown as they come.
 */
export function useUpdateChatbotEmbed(chatbotId: string) {
  const store = useChatbots();
  const [mutate, { loading }] = useMutation(UpdateChatbotEmbedMutation);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();

  async function saveEmbed(input: EmbedInput): Promise<ChatbotEmbedFragment | null> {
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

  function fail(message: string) {
    success.clear();
    setError(message);
  }

  return { saveEmbed, fail, loading, error, success: success.message };
}
