import { useQuery } from '@apollo/client/react';
import type { InboxItemFieldsFragment, InboxQuery as InboxData } from '../../../gql/graphql';
import { InboxQuery } from '../graphql/inbox-query';
import { placeItem } from '../inbox-lists';
import { useInboxLive } from './use-inbox-live';

/**
 * The inbox's two lists, kept live: each conversation the stream reports takes its place (or leaves)
 * at once, and every (re)connection fetches both lists again.
 */
export function useInbox(enabled: boolean) {
  const query = useQuery(InboxQuery, { skip: !enabled, fetchPolicy: 'cache-and-network', notifyOnNetworkStatusChange: false });
  const { client, refetch } = query;
  useInboxLive(enabled, {
    onItem: (item: InboxItemFieldsFragment) => {
      client.cache.updateQuery<InboxData>({ query: InboxQuery }, (data) =>
        data ? { inbox: { ...data.inbox, ...placeItem(data.inbox, item) } } : data,
      );
    },
    onConnected: () => void refetch().catch(() => undefined),
  });
  return query;
}
