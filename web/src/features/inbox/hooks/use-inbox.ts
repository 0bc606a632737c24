import { useEffect, useState } from 'react';
import { useQuery } from '@apollo/client/react';
import type { InboxItemFieldsFragment, InboxQuery as InboxData } from '../../../gql/graphql';
import { InboxQuery } from '../graphql/inbox-query';
import { placeItem } from '../inbox-lists';
import { useInboxLive } from './use-inbox-live';

/** Why the stream ended for good (the server's words, with the workspace it was for); null while it holds. */
interface Ended {
  message: string;
  workspaceKey: string;
}

/**
 * The inbox's two lists, kept live: each conversation the stream reports takes its place (or leaves)
 * at once, and every (re)connection fetches both lists again. When the server ends the stream because
 * the member's access was taken away, `ended` holds its words and the lists are dropped from the cache.
 */
export function useInbox(enabled: boolean, workspaceKey: string) {
  const [ended, setEnded] = useState<Ended | null>(null);
  const live = enabled && ended?.workspaceKey !== workspaceKey;
  const query = useQuery(InboxQuery, { skip: !live, fetchPolicy: 'cache-and-network', notifyOnNetworkStatusChange: false });
  const { client, refetch } = query;
  useEffect(() => {
    if (ended) client.cache.evict({ fieldName: 'inbox' });
  }, [client, ended]);
  useInboxLive(live, {
    onEnded: (message) => setEnded({ message, workspaceKey }),
    onItem: (item: InboxItemFieldsFragment) => {
      client.cache.updateQuery<InboxData>({ query: InboxQuery }, (data) =>
        data ? { inbox: { ...data.inbox, ...placeItem(data.inbox, item) } } : data,
      );
    },
    onConnected: () => void refetch().catch(() => undefined),
  });
  return { ...query, ended: ended?.workspaceKey === workspaceKey ? ended.message : null };
}
