import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { RefreshTextEntryMutation } from '../graphql/refresh-text-entry-mutation';
import { SetTextEntryAutoSyncMutation } from '../graphql/set-text-entry-auto-sync-mutation';
import { writeTextEntryResult } from './write-text-entry-result';

export const REFRESH_FAILED_MESSAGE = 'Failed to refresh website';
export const AUTO_SYNC_FAILED_MESSAGE = 'Failed to change auto-sync';

/**
 * Refresh and Auto-sync of one website entry. Errors belong to the entry, so each entry shows its own;
 * a refresh puts the entry back in processing, which restarts the page's polling.
 */
export function useWebsiteEntryActions(chatbotId: string, entryId: string) {
  const [refreshMutate, { loading: refreshing }] = useMutation(RefreshTextEntryMutation);
  const [autoSyncMutate, { loading: savingAutoSync }] = useMutation(SetTextEntryAutoSyncMutation);
  const [error, setError] = useState<string | null>(null);

  async function refresh(): Promise<boolean> {
    if (refreshing) return false;
    setError(null);
    try {
      await refreshMutate({
        variables: { chatbotId, entryId },
        update(cache, { data }) {
          if (data) writeTextEntryResult(cache, chatbotId, data.refreshTextEntry);
        },
      });
      return true;
    } catch (failure) {
      setError(graphqlErrorMessage(failure) ?? REFRESH_FAILED_MESSAGE);
      return false;
    }
  }

  async function setAutoSync(autoSync: boolean): Promise<boolean> {
    if (savingAutoSync) return false;
    setError(null);
    try {
      await autoSyncMutate({
        variables: { chatbotId, entryId, autoSync },
        update(cache, { data }) {
          if (data) writeTextEntryResult(cache, chatbotId, data.setTextEntryAutoSync);
        },
      });
      return true;
    } catch (failure) {
      setError(graphqlErrorMessage(failure) ?? AUTO_SYNC_FAILED_MESSAGE);
      return false;
    }
  }

  return { refresh, refreshing, setAutoSync, savingAutoSync, error };
}
