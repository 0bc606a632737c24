import { skipToken, useQuery } from '@apollo/client/react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useSession } from '../../../lib/session/session-context';
import { ConversationsQuery } from '../graphql/conversations-query';

export const CONVERSATIONS_FAILED_MESSAGE = 'Failed to load conversation history';

/**
 * The chatbot's conversations, most recent first. Loaded only while the History tab is open and
 * only for the Pro plan (docs/product.md, Conversation history); opening the tab again refreshes the list.
 */
export function useConversations(chatbotId: string, open: boolean) {
  const { user } = useSession();
  const enabled = open && user?.subscription === 'pro';
  const { data, loading, error } = useQuery(
    ConversationsQuery,
    enabled ? { variables: { chatbotId }, fetchPolicy: 'cache-and-network' } : skipToken,
  );
  return {
    conversations: data?.conversations ?? [],
    loading: loading && !data,
    error: error && !data ? (graphqlErrorMessage(error) ?? CONVERSATIONS_FAILED_MESSAGE) : null,
  };
}
