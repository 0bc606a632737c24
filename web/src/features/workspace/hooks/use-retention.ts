import { useApolloClient, useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { RetentionPreviewQuery, RetentionQuery, SetRetentionMutation } from '../graphql/retention-operations';
import { useWorkspaceAction } from './use-workspace-action';

export const RETENTION_FAILED_MESSAGE = 'Could not save the retention windows. Please try again.';
export const RETENTION_SAVED_MESSAGE = 'Retention windows saved';

/** Days, or null for forever. */
export interface Windows {
  conversationDays: number | null;
  leadDays: number | null;
  usageDetailDays: number | null;
  webhookDeliveryDays: number | null;
  analyticsDays: number | null;
}

export interface Preview {
  conversations: number;
  messages: number;
  leads: number;
  usageRecords: number;
  webhookDeliveries: number;
  analyticsDays: number;
  questionGroups: number;
}

/** A window that keeps less than before: a set window under the old one, or any window where there was none. */
export const shortens = (before: number | null, after: number | null) => after !== null && (before === null || after < before);

/** The workspace's retention windows: read, previewed before a shorter window is saved, saved (owners and admins). */
export function useRetention() {
  const client = useApolloClient();
  const { data, loading } = useQuery(RetentionQuery, { fetchPolicy: 'cache-and-network' });
  const [mutate] = useMutation(SetRetentionMutation, { refetchQueries: [RetentionQuery] });
  const action = useWorkspaceAction(RETENTION_FAILED_MESSAGE);
  const [success, setSuccess] = useState<string | null>(null);

  async function preview(windows: Windows): Promise<Preview | null> {
    let counts: Preview | null = null;
    const ok = await action.run(async () => {
      const res = await client.query({ query: RetentionPreviewQuery, variables: { input: windows }, fetchPolicy: 'network-only' });
      counts = res.data?.retentionPreview ?? null;
    });
    return ok ? counts : null;
  }

  async function save(windows: Windows): Promise<boolean> {
    setSuccess(null);
    const saved = await action.run(() => mutate({ variables: { input: windows } }));
    if (saved) setSuccess(RETENTION_SAVED_MESSAGE);
    return saved;
  }

  return { windows: data?.retention ?? null, loading, preview, save, busy: action.busy, error: action.error, success };
}
