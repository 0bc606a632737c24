import { Navigate, Outlet } from 'react-router-dom';
import { useSession } from '../lib/session/session-context';
import { useWorkspace } from '../lib/workspace/workspace-context';

/** Where a member is sent when their workspace requires two-factor sign-in and theirs is off. */
export const TWO_FACTOR_SET_UP_PATH = '/account#two-factor';

/**
 * The guard of the dashboard's pages: in a workspace that requires two-factor sign-in, a member
 * without it goes to the account page to set it up before anything else (the gateway refuses their
 * workspace requests with TWO_FACTOR_REQUIRED meanwhile).
 */
export function RequireTwoFactor() {
  const { user } = useSession();
  const { current } = useWorkspace();
  if (current?.requireTwoFactor && user && !user.twoFactorEnabled) return <Navigate to={TWO_FACTOR_SET_UP_PATH} replace />;
  return <Outlet />;
}
