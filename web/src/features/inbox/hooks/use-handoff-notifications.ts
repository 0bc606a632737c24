import { useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { HandoffNotificationsQuery } from '../graphql/handoff-notifications-query';
import { SetHandoffNotificationsMutation } from '../graphql/set-handoff-notifications-mutation';

export const NOTIFICATIONS_FAILED = 'Your choice could not be saved. Please try again.';

/** The member's own switch "Email me when a visitor is waiting" in the current workspace. */
export function useHandoffNotifications(enabled: boolean) {
  const { data } = useQuery(HandoffNotificationsQuery, { skip: !enabled });
  const [set, { loading }] = useMutation(SetHandoffNotificationsMutation);
  const [error, setError] = useState<string | null>(null);
  const workspace = data?.currentWorkspace;

  async function change(on: boolean) {
    setError(null);
    try {
      await set({
        variables: { enabled: on },
        update: (cache, { data: answer }) => {
          if (!workspace || answer === undefined || answer === null) return;
          cache.writeQuery({
            query: HandoffNotificationsQuery,
            data: { currentWorkspace: { ...workspace, handoffNotifications: answer.setHandoffNotifications } },
          });
        },
      });
    } catch (failure) {
      setError(userFacingErrorMessage(failure, NOTIFICATIONS_FAILED));
    }
  }

  return { on: workspace?.handoffNotifications ?? true, loaded: Boolean(workspace), saving: loading, error, change };
}
