import { useQuery } from '@apollo/client/react';
import { useSession } from '../../../lib/session/session-context';
import { useCan } from '../../../lib/workspace/use-can';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { InboxWaitingCountQuery } from '../graphql/inbox-waiting-count-query';
import { useInboxLive } from './use-inbox-live';

/**
 * How many visitors of the current workspace wait for a person, for the header's badge: null when the
 * member may not read conversations (no badge, no link). Counted again on every change the live inbox
 * reports and on each reconnection.
 */
export function useWaitingCount(): { allowed: boolean; count: number } {
  const session = useSession();
  const { current } = useWorkspace();
  const canRead = useCan('conversations:read');
  const allowed = session.isAuthenticated && current !== null && canRead;
  const { data, refetch } = useQuery(InboxWaitingCountQuery, { skip: !allowed, fetchPolicy: 'cache-and-network' });
  const live = allowed && session.user?.subscription === 'pro';
  useInboxLive(live, {
    onItem: () => void refetch().catch(() => undefined),
    onConnected: () => void refetch().catch(() => undefined),
  });
  return { allowed, count: allowed ? (data?.inboxWaitingCount ?? 0) : 0 };
}
