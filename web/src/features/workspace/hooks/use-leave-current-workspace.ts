import { useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import { withNotice } from '../../../lib/route-notice';
import { useSession } from '../../../lib/session/session-context';
import { useWorkspace } from '../../../lib/workspace/workspace-context';

/**
 * After the current workspace is gone for this user (left or deleted): the dashboard of the personal
 * workspace (or, without one, another they belong to; or, in none, the way to create or join one),
 * with `notice` shown there. The plan and credit shown with the user are asked again: they were the
 * workspace's.
 */
export function useLeaveCurrentWorkspace() {
  const workspace = useWorkspace();
  const session = useSession();
  const navigate = useNavigate();
  return useCallback(
    async (notice: string) => {
      const gone = workspace.current?.id;
      const next = workspace.workspaces.find((w) => w.personal && w.id !== gone) ?? workspace.workspaces.find((w) => w.id !== gone);
      if (next) {
        await workspace.select(next.id);
        await navigate('/dashboard', { state: withNotice(notice) });
      } else {
        // Nothing of the gone workspace stays on screen while auth is asked where the user acts now:
        // the dashboard waits for the answer, which may be that they belong to none. The dashboard is
        // shown at once (flushSync), before that answer could send the page left behind there without the notice.
        const forgotten = workspace.forget();
        await navigate('/dashboard', { state: withNotice(notice), flushSync: true });
        await forgotten;
      }
      await session.refreshUser();
    },
    [workspace, session, navigate],
  );
}
