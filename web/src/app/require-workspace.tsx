import type { ReactNode } from 'react';
import { Outlet } from 'react-router-dom';
import { Spinner } from '../components/ui/spinner';
import { useWorkspace } from '../lib/workspace/workspace-context';

/**
 * The guard of the pages about a workspace's things: a person in no workspace gets `without` (the
 * dashboard's "You are not a member of any workspace", or the way back to it). With `waitForFirst`
 * (the dashboard, where signing in lands) a spinner is shown until the signed-in person's workspace
 * is first known, so that state never opens as a moment of an empty dashboard.
 */
export function RequireWorkspace({ without, waitForFirst = false }: { without: ReactNode; waitForFirst?: boolean }) {
  const { noWorkspace, current, loading, error } = useWorkspace();
  if (noWorkspace) return without;
  if (waitForFirst && current === null && loading && error === null) {
    return (
      <div className="flex flex-1 items-center justify-center py-24 text-brand-600">
        <Spinner className="size-8" label="Loading workspace" />
      </div>
    );
  }
  return <Outlet />;
}
