import { useQuery } from '@apollo/client/react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { ConversationQuery } from '../graphql/conversation-query';

export const CONVERSATION_FAILED_MESSAGE = 'Failed to load conversation messages';

/** One conversation with its messages, for the History tab's details view. */
export function useConversation(chatbotId: string, conversationId: string) {
  const { data, loading, error } = useQuery(ConversationQuery, {
    variables: { chatbotId, id: conversationId },
    fetchPolicy: 'cache-and-network',
  });
  return {
    conversation: data?.conversation ?? null,
    loading: loading && !data,
    error: error && !data ? (graphqlErrorMessage(error) ?? CONVERSATION_FAILED_MESSAGE) : null,
  };
}
