import { useCallback, useEffect, useState } from 'react';
import {
  ActionsApiError,
  createAction,
  deleteAction,
  listActions,
  updateAction,
  type ActionDefinitionInput,
  type ActionView,
} from '../api/actions-api';

export const ACTIONS_LOAD_FAILED_MESSAGE = 'Could not load the actions. Please try again.';

/** What the owner is told of a failed call: the server's sentence, or the fallback. */
export const actionsMessageOf = (err: unknown, fallback: string) => (err instanceof ActionsApiError ? err.message : fallback);

/** A chatbot's HTTP actions, and the calls that change them (each refreshes the list). */
export function useActions(chatbotId: string) {
  const [actions, setActions] = useState<ActionView[]>([]);
  const [loading, setLoading] = useState(true);
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<{ at: string; message: string } | null>(null);

  const reload = useCallback(async () => {
    try {
      setActions(await listActions(chatbotId));
      setFailed(null);
    } catch (err) {
      setFailed(actionsMessageOf(err, ACTIONS_LOAD_FAILED_MESSAGE));
    } finally {
      setLoading(false);
    }
  }, [chatbotId]);

  useEffect(() => {
    void reload();
  }, [reload]);

  /** Runs one change under a name (what is busy, where its error shows); true when it went through. */
  async function run(at: string, change: () => Promise<unknown>, fallback: string): Promise<boolean> {
    setBusy(at);
    setError(null);
    try {
      await change();
      await reload();
      return true;
    } catch (err) {
      setError({ at, message: actionsMessageOf(err, fallback) });
      return false;
    } finally {
      setBusy(null);
    }
  }

  return {
    actions,
    loading,
    failed,
    busy,
    errorAt: (at: string) => (error?.at === at ? error.message : null),
    clearError: () => setError(null),
    /** `actionId` null adds a new action. */
    save: (actionId: string | null, definition: ActionDefinitionInput) =>
      run(
        `save:${actionId ?? 'new'}`,
        () => (actionId ? updateAction(chatbotId, actionId, definition) : createAction(chatbotId, definition)),
        'Could not save the action. Please try again.',
      ),
    remove: (actionId: string) =>
      run(`delete:${actionId}`, () => deleteAction(chatbotId, actionId), 'Could not delete the action. Please try again.'),
  };
}
