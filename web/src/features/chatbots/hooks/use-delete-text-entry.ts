import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useFlashMessage } from '../../../lib/use-flash-message';
import { DeleteTextEntryMutation } from '../graphql/delete-text-entry-mutation';
import { writeKnowledgeBase } from './write-knowledge-base';

export const DELETE_ENTRY_CONFIRMATION = 'Are you sure you want to delete this knowledge base entry? This action cannot be undone.';
export const DELETE_ENTRY_FAILED_MESSAGE = 'Failed to delete text entry';
export const ENTRY_DELETED_MESSAGE = 'Text entry deleted successfully';

/** Confirms and deletes one text entry; knows which entry is being deleted so only its button spins. */
export function useDeleteTextEntry(chatbotId: string) {
  const [mutate] = useMutation(DeleteTextEntryMutation);
  const [deletingId, setDeletingId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();

  async function deleteEntry(entryId: string): Promise<boolean> {
    if (deletingId !== null || !window.confirm(DELETE_ENTRY_CONFIRMATION)) return false;
    setDeletingId(entryId);
    setError(null);
    success.clear();
    try {
      await mutate({
        variables: { chatbotId, entryId },
        update(cache, { data }) {
          if (data) writeKnowledgeBase(cache, chatbotId, data.deleteTextEntry);
        },
      });
      success.show(ENTRY_DELETED_MESSAGE);
      return true;
    } catch (failure) {
      setError(graphqlErrorMessage(failure) ?? DELETE_ENTRY_FAILED_MESSAGE);
      return false;
    } finally {
      setDeletingId(null);
    }
  }

  return { deleteEntry, deletingId, error, success: success.message };
}
