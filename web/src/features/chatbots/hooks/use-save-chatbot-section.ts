import { useMutation } from '@apollo/client/react';
import type { TypedDocumentNode } from '@apollo/client';
import { useState } from 'react';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useFlashMessage } from '../../../lib/use-flash-message';
import { CHATBOT_UPDATED_MESSAGE, UPDATE_CHATBOT_FAILED_MESSAGE } from './use-update-chatbot';

/** A section's updateChatbot mutation: its input, and the fields of the chatbot it shows. */
type SectionMutation<TSaved, TInput> = TypedDocumentNode<
  { updateChatbot: TSaved & { id: string; updatedAt: string } },
  { id: string; input: TInput }
>;

/**
 * Saves one section of the chatbot's settings (voice, model, lead form, handoff, an Embed card),
 * each with its own outcome: the cache picks up the answer and the list its new updatedAt; the
 * server's refusals are shown as they come.
 */
export function useSaveChatbotSection<TSaved, TInput>(chatbotId: string, mutation: SectionMutation<TSaved, TInput>) {
  const store = useChatbots();
  const [mutate, { loading }] = useMutation(mutation);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();

  async function save(input: TInput): Promise<TSaved | null> {
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

  /** Shows a refusal found before asking the server. */
  function fail(message: string) {
    success.clear();
    setError(message);
  }

  return { save, fail, loading, error, success: success.message };
}
