import { useEffect, useRef } from 'react';
import type { InboxItemFieldsFragment } from '../../../gql/graphql';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { subscribeInbox } from '../inbox-stream';

/**
 * Calls `onItem` for each conversation the live inbox reports, `onConnected` on each (re)connection
 * and `onEnded` when the server ends it for good, while `enabled`; a workspace switch opens the
 * stream again for the new workspace.
 */
export function useInboxLive(
  enabled: boolean,
  handlers: { onItem?: (item: InboxItemFieldsFragment) => void; onConnected?: () => void; onEnded?: (message: string) => void },
) {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  const { key } = useWorkspace();
  useEffect(() => {
    if (!enabled) return undefined;
    return subscribeInbox({
      onItem: (item) => latest.current.onItem?.(item),
      onConnected: () => latest.current.onConnected?.(),
      onEnded: (message) => latest.current.onEnded?.(message),
    });
  }, [enabled, key]);
}
