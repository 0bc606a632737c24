import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { DeleteWorkspaceMutation } from '../graphql/delete-workspace-mutation';
import { RenameWorkspaceMutation } from '../graphql/rename-workspace-mutation';
import { SetRequireTwoFactorMutation } from '../graphql/set-require-two-factor-mutation';
import { useLeaveCurrentWorkspace } from './use-leave-current-workspace';
import { useWorkspaceAction } from './use-workspace-action';
import { WORKSPACE_NAME_REQUIRED_MESSAGE } from './use-create-workspace';

export const RENAME_FAILED_MESSAGE = 'Could not rename the workspace. Please try again.';
export const RENAMED_MESSAGE = 'Workspace renamed';
export const DELETE_WORKSPACE_FAILED_MESSAGE = 'Could not delete the workspace. Please try again.';
export const DELETE_WORKSPACE_PASSWORD_REQUIRED_MESSAGE = 'Please enter your password to delete the workspace.';
export const WORKSPACE_DELETED_MESSAGE = 'The workspace has been deleted.';

/** Renaming the current workspace (owners and admins). */
export function useRenameWorkspace() {
  const [mutate] = useMutation(RenameWorkspaceMutation);
  const workspace = useWorkspace();
  const action = useWorkspaceAction(RENAME_FAILED_MESSAGE);
  const [success, setSuccess] = useState<string | null>(null);
  async function rename(name: string): Promise<void> {
    setSuccess(null);
    if (!name.trim()) {
      action.setError(WORKSPACE_NAME_REQUIRED_MESSAGE);
      return;
    }
    const renamed = await action.run(async () => {
      await mutate({ variables: { name: name.trim() } });
      await workspace.refresh();
    });
    if (renamed) setSuccess(RENAMED_MESSAGE);
  }
  return { rename, renaming: action.busy, error: action.error, success };
}

export const REQUIRE_TWO_FACTOR_FAILED_MESSAGE = 'Could not change the two-factor requirement. Please try again.';

/** "Require two-factor sign-in for members" (owners and admins who have it on themselves). */
export function useRequireTwoFactor() {
  const [mutate] = useMutation(SetRequireTwoFactorMutation);
  const workspace = useWorkspace();
  const action = useWorkspaceAction(REQUIRE_TWO_FACTOR_FAILED_MESSAGE);
  async function setRequired(enabled: boolean): Promise<void> {
    await action.run(async () => {
      await mutate({ variables: { enabled } });
      await workspace.refresh();
    });
  }
  return { setRequired, saving: action.busy, error: action.error };
}

/** Deleting the current workspace with everything it owns, confirmed with the password (owners, not the personal one). */
export function useDeleteWorkspace() {
  const [mutate] = useMutation(DeleteWorkspaceMutation);
  const leaveCurrent = useLeaveCurrentWorkspace();
  const action = useWorkspaceAction(DELETE_WORKSPACE_FAILED_MESSAGE);
  async function deleteWorkspace(password: string): Promise<boolean> {
    if (!password) {
      action.setError(DELETE_WORKSPACE_PASSWORD_REQUIRED_MESSAGE);
      return false;
    }
    const deleted = await action.run(async () => {
      const { data } = await mutate({ variables: { password } });
      if (!data?.deleteWorkspace) throw new Error('deleteWorkspace answered false');
    });
    if (deleted) await leaveCurrent(WORKSPACE_DELETED_MESSAGE);
    return deleted;
  }
  return { deleteWorkspace, deleting: action.busy, error: action.error, reset: action.reset };
}
