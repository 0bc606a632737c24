import { useMutation } from '@apollo/client/react';
import type { WorkspaceRole } from '../../../gql/graphql';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { InvitationsQuery } from '../graphql/invitations-query';
import { InviteMemberMutation } from '../graphql/invite-member-mutation';
import { ResendInvitationMutation } from '../graphql/resend-invitation-mutation';
import { RevokeInvitationMutation } from '../graphql/revoke-invitation-mutation';
import { useWorkspaceAction } from './use-workspace-action';

export const INVITE_FAILED_MESSAGE = 'Could not send the invitation. Please try again.';
export const RESEND_FAILED_MESSAGE = 'Could not resend the invitation. Please try again.';
export const REVOKE_FAILED_MESSAGE = 'Could not revoke the invitation. Please try again.';
export const INVITE_EMAIL_REQUIRED_MESSAGE = 'Please enter the email address to invite.';

const refetchInvitations = { refetchQueries: [{ query: InvitationsQuery }], awaitRefetchQueries: true };

/** Inviting an email with a role: a pending invitation takes a seat until it is accepted or revoked. */
export function useInviteMember() {
  const [mutate] = useMutation(InviteMemberMutation);
  const workspace = useWorkspace();
  const action = useWorkspaceAction(INVITE_FAILED_MESSAGE);
  async function invite(email: string, role: WorkspaceRole): Promise<boolean> {
    if (!email.trim()) {
      action.setError(INVITE_EMAIL_REQUIRED_MESSAGE);
      return false;
    }
    return action.run(async () => {
      await mutate({ variables: { email: email.trim(), role }, ...refetchInvitations });
      await workspace.refresh();
    });
  }
  return { invite, inviting: action.busy, error: action.error };
}

/** Resending (a fresh link, valid 7 days again) or revoking a pending invitation. */
export function useInvitationActions() {
  const [resendMutation] = useMutation(ResendInvitationMutation);
  const [revokeMutation] = useMutation(RevokeInvitationMutation);
  const workspace = useWorkspace();
  const resendAction = useWorkspaceAction(RESEND_FAILED_MESSAGE);
  const revokeAction = useWorkspaceAction(REVOKE_FAILED_MESSAGE);
  const resend = (id: string) => resendAction.run(() => resendMutation({ variables: { id }, ...refetchInvitations }));
  const revoke = (id: string) =>
    revokeAction.run(async () => {
      await revokeMutation({ variables: { id }, ...refetchInvitations });
      await workspace.refresh();
    });
  return { resend, revoke, busy: resendAction.busy || revokeAction.busy, error: resendAction.error ?? revokeAction.error };
}
