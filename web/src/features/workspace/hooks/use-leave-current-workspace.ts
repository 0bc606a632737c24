import { useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import { withNotice } from '../../../lib/route-notice';
import { useWorkspace } from '../../../lib/workspace/workspace-context';

/**
 * After the current workspace is gone for this user (left or deleted): the dashboard of the personal
 * workspace (or, without one, another they belong to), with `notice` shown there.
 */
export function useLeaveCurrentWorkspace() {
  const workspace = useWorkspace();
  const navigate = useNavigate();
  return useCallback(
    async (notice: string) => {
      const gone = workspace.current?.id;
      const next = workspace.workspaces.find((w) => w.personal && w.id !== gone) ?? workspace.workspaces.find((w) => w.id !== gone);
      if (next) await workspace.select(next.id);
      else await workspace.refresh();
      await navigate('/dashboard', { state: withNotice(notice) });
    },
    [workspace, navigate],
  );
}
