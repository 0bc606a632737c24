import { useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import { useSession } from '../../../lib/session/session-context';
import { useWorkspace } from '../../../lib/workspace/workspace-context';

/** Acts in another workspace: the dashboard, with everything loaded again for that workspace. */
export function useSwitchWorkspace() {
  const workspace = useWorkspace();
  const session = useSession();
  const navigate = useNavigate();
  return useCallback(
    async (id: string) => {
      // The choice is stored and the cache emptied first, so the dashboard asks in the new workspace.
      await workspace.select(id);
      await navigate('/dashboard');
      // The plan and credit shown with the user are the workspace's.
      await session.refreshUser();
    },
    [workspace, session, navigate],
  );
}
