import { useCallback, useState } from 'react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { useFlashMessage } from '../../../lib/use-flash-message';

/**
 * What one account form says after a submit: an error that stays until the next try, or a success
 * banner that hides itself after 3 seconds (docs/product.md, Constants). Each mutation hook owns one.
 */
export function useFormOutcome() {
  const success = useFlashMessage();
  const [error, setError] = useState<string | null>(null);
  const { show, clear } = success;

  /** A new submit: the previous answer no longer applies. */
  const start = useCallback(() => {
    setError(null);
    clear();
  }, [clear]);

  const succeed = useCallback((message: string) => show(message), [show]);

  /** A client check (a message of ours) or a failed call (the server's message, else `fallback`). */
  const fail = useCallback((failure: unknown, fallback: string) => {
    setError(typeof failure === 'string' ? failure : userFacingErrorMessage(failure, fallback));
  }, []);

  return { error, success: success.message, start, succeed, fail };
}
