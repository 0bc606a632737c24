import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useSession } from '../../../lib/session/session-context';
import { useWorkspace } from '../../../lib/workspace/workspace-context';

/**
 * A link from a mail names the workspace its conversation belongs to (`?workspace=`): the page acts in
 * it when the person is a member (as the switcher would, without leaving the page), then drops the
 * parameter. A workspace they are not in is ignored.
 */
export function useWorkspaceFromLink(): void {
  const [params, setParams] = useSearchParams();
  const wanted = params.get('workspace');
  const { workspaces, current, select } = useWorkspace();
  const { refreshUser } = useSession();
  const handled = useRef<string | null>(null);

  useEffect(() => {
    if (!wanted || workspaces.length === 0 || handled.current === wanted) return;
    handled.current = wanted;
    const drop = () =>
      setParams(
        (p) => {
          p.delete('workspace');
          return p;
        },
        { replace: true },
      );
    if (current?.id === wanted || !workspaces.some((w) => w.id === wanted)) {
      drop();
      return;
    }
    void (async () => {
      await select(wanted);
      // The plan shown with the user is the workspace's.
      await refreshUser();
      drop();
    })();
  }, [wanted, workspaces, current, select, refreshUser, setParams]);
}
