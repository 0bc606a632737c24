import { useCallback, useState } from 'react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';

/**
 * Runs one change to the webhooks (a mutation and what follows it) and keeps what the page shows
 * about it: busy while it runs, then the server's own message when it fails (an address refused, an
 * unknown event), or nothing. Resolves to whether it succeeded.
 */
export function useWebhookAction(fallback: string) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = useCallback(
    async (action: () => Promise<unknown>): Promise<boolean> => {
      setBusy(true);
      setError(null);
      try {
        await action();
        return true;
      } catch (failure) {
        setError(userFacingErrorMessage(failure, fallback));
        return false;
      } finally {
        setBusy(false);
      }
    },
    [fallback],
  );

  const reset = useCallback(() => setError(null), []);
  return { run, busy, error, reset };
}
