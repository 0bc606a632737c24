import { useMutation } from '@apollo/client/react';
import type { WorkspaceRole } from '../../../gql/graphql';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { ChangeMemberRoleMutation } from '../graphql/change-member-role-mutation';
import { LeaveWorkspaceMutation } from '../graphql/leave-workspace-mutation';
import { MembersQuery } from '../graphql/members-query';
import { RemoveMemberMutation } from '../graphql/remove-member-mutation';
import { TransferOwnershipMutation } from '../graphql/transfer-ownership-mutation';
import { useLeaveCurrentWorkspace } from './use-leave-current-workspace';
import { useWorkspaceAction } from './use-workspace-action';

export const CHANGE_ROLE_FAILED_MESSAGE = 'Could not change the role. Please try again.';
export const REMOVE_MEMBER_FAILED_MESSAGE = 'Could not remove the member. Please try again.';
export const LEAVE_FAILED_MESSAGE = 'Could not leave the workspace. Please try again.';
export const TRANSFER_FAILED_MESSAGE = 'Could not transfer the ownership. Please try again.';
export const LEFT_WORKSPACE_MESSAGE = 'You have left the workspace.';

const refetchMembers = { refetchQueries: [{ query: MembersQuery }], awaitRefetchQueries: true };

/** Changing a member's role (the answer updates the cached member). */
export function useChangeMemberRole() {
  const [mutate] = useMutation(ChangeMemberRoleMutation);
  const action = useWorkspaceAction(CHANGE_ROLE_FAILED_MESSAGE);
  const changeRole = (userId: string, role: WorkspaceRole) => action.run(() => mutate({ variables: { userId, role }, ...refetchMembers }));
  return { changeRole, changing: action.busy, error: action.error };
}

/** Removing a member: their access ends at their next request; the seat is free again. */
export function useRemoveMember() {
  const [mutate] = useMutation(RemoveMemberMutation);
  const workspace = useWorkspace();
  const action = useWorkspaceAction(REMOVE_MEMBER_FAILED_MESSAGE);
  const removeMember = (userId: string) =>
    action.run(async () => {
      await mutate({ variables: { userId }, ...refetchMembers });
      await workspace.refresh();
    });
  return { removeMember, removing: action.busy, error: action.error, reset: action.reset };
}

/** Leaving the current workspace, then acting in the personal one. */
export function useLeaveWorkspace() {
  const [mutate] = useMutation(LeaveWorkspaceMutation);
  const leaveCurrent = useLeaveCurrentWorkspace();
  const action = useWorkspaceAction(LEAVE_FAILED_MESSAGE);
  async function leave(): Promise<void> {
    const left = await action.run(() => mutate());
    if (left) await leaveCurrent(LEFT_WORKSPACE_MESSAGE);
  }
  return { leave, leaving: action.busy, error: action.error, reset: action.reset };
}

/** Making another member an owner; the caller becomes an admin. */
export function useTransferOwnership() {
  const [mutate] = useMutation(TransferOwnershipMutation);
  const workspace = useWorkspace();
  const action = useWorkspaceAction(TRANSFER_FAILED_MESSAGE);
  const transfer = (userId: string) =>
    action.run(async () => {
      await mutate({ variables: { userId }, ...refetchMembers });
      await workspace.refresh();
    });
  return { transfer, transferring: action.busy, error: action.error, reset: action.reset };
}
