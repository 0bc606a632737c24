import { useState } from 'react';
import { userFacingErrorMessage } from './graphql-errors';

/** One mutation's state: busy, and the error it ended with, cleared on the next try. */
export function useAction<Args extends unknown[], Result>(run: (...args: Args) => Promise<Result>, fallback: string) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function act(...args: Args): Promise<Result | null> {
    setBusy(true);
    setError(null);
    try {
      return await run(...args);
    } catch (failure) {
      setError(userFacingErrorMessage(failure, fallback));
      return null;
    } finally {
      setBusy(false);
    }
  }
  return { act, busy, error, reset: () => setError(null) };
}
