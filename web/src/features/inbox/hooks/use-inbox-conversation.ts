import { useQuery } from '@apollo/client/react';
import { InboxConversationQuery } from '../graphql/inbox-conversation-query';
import { useInboxLive } from './use-inbox-live';

/**
 * One conversation of the inbox with its messages and notes, kept live: fetched again whenever the
 * stream reports a change to it (a visitor's message, another agent's reply or claim) and on each
 * reconnection.
 */
export function useInboxConversation(id: string | undefined, enabled: boolean) {
  const active = enabled && Boolean(id);
  const query = useQuery(InboxConversationQuery, {
    variables: { id: id ?? '' },
    skip: !active,
    fetchPolicy: 'cache-and-network',
  });
  const { refetch } = query;
  useInboxLive(active, {
    onItem: (item) => {
      if (item.conversationId === id) void refetch().catch(() => undefined);
    },
    onConnected: () => void refetch().catch(() => undefined),
  });
  return query;
}
