import { useMutation, useQuery } from '@apollo/client/react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { AcceptInvitationMutation } from '../graphql/accept-invitation-mutation';
import { InvitationPreviewQuery } from '../graphql/invitation-preview-query';
import { useSwitchWorkspace } from './use-switch-workspace';
import { useWorkspaceAction } from './use-workspace-action';

export const LOAD_INVITATION_FAILED_MESSAGE = 'Could not load the invitation. Please try again.';
export const ACCEPT_FAILED_MESSAGE = 'Could not accept the invitation. Please try again.';

/** What an invitation link invites to; an expired, used or forged link answers the server's reason. */
export function useInvitationPreview(token: string) {
  const { data, loading, error } = useQuery(InvitationPreviewQuery, { variables: { token }, fetchPolicy: 'network-only' });
  return {
    preview: data?.invitation ?? null,
    loading: loading && !data,
    error: error ? userFacingErrorMessage(error, LOAD_INVITATION_FAILED_MESSAGE) : null,
  };
}

/** Joining the invitation's workspace as the signed-in user, then acting in it. */
export function useAcceptInvitation(token: string) {
  const [mutate] = useMutation(AcceptInvitationMutation);
  const switchTo = useSwitchWorkspace();
  const action = useWorkspaceAction(ACCEPT_FAILED_MESSAGE);
  async function accept(): Promise<void> {
    let id: string | undefined;
    const accepted = await action.run(async () => {
      const { data } = await mutate({ variables: { token } });
      if (!data) throw new Error('empty acceptInvitation response');
      id = data.acceptInvitation.id;
    });
    if (accepted && id) await switchTo(id);
  }
  return { accept, accepting: action.busy, error: action.error };
}
