import { useMutation } from '@apollo/client/react';
import { graphqlErrorMessage } from '../graphql-errors';
import { useChatbots } from './chatbots-context';
import { DeleteChatbotMutation } from './graphql/delete-chatbot-mutation';

export const DELETE_CHATBOT_CONFIRMATION = 'Are you sure you want to delete this chatbot? This action cannot be undone.';
export const DELETE_CHATBOT_FAILED_MESSAGE = 'Failed to delete chatbot';

/**
 * Asks for confirmation, deletes the chatbot and drops it from the list and the cache. A failure is
 * only logged (docs/product.md, Messages): the card simply stays.
 */
export function useDeleteChatbot() {
  const store = useChatbots();
  const [mutate, { loading }] = useMutation(DeleteChatbotMutation);

  async function deleteChatbot(id: string): Promise<boolean> {
    if (!window.confirm(DELETE_CHATBOT_CONFIRMATION)) return false;
    try {
      await mutate({
        variables: { id },
        update(cache) {
          cache.evict({ id: cache.identify({ __typename: 'Chatbot', id }) });
          cache.gc();
        },
      });
      store.remove(id);
      return true;
    } catch (error) {
      console.error(DELETE_CHATBOT_FAILED_MESSAGE, graphqlErrorMessage(error) ?? error);
      return false;
    }
  }

  return { deleteChatbot, deleting: loading };
}
