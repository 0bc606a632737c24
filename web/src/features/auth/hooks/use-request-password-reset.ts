import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { RequestPasswordResetMutation } from '../graphql/request-password-reset-mutation';
import { validateForgotPassword } from '../validation';

/** Shown when the server answered without its own text; the server's answer is the same sentence. */
export const RESET_LINK_SENT_MESSAGE = "If an account exists for that email, we've sent a link.";
export const RESET_REQUEST_FAILED_MESSAGE = 'Could not send the reset link. Please try again.';

/**
 * Asks for a reset link. The answer is the server's, and the same whether or not the email has an
 * account; only a refusal (too many requests, a bad address) or a failure is an error.
 */
export function useRequestPasswordReset() {
  const [mutate, { loading }] = useMutation(RequestPasswordResetMutation);
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function requestReset(email: string): Promise<void> {
    const invalid = validateForgotPassword(email);
    setSent(null);
    setError(invalid);
    if (invalid) return;
    try {
      const { data } = await mutate({ variables: { email: email.trim() } });
      setSent(data?.requestPasswordReset || RESET_LINK_SENT_MESSAGE);
    } catch (failure) {
      setError(userFacingErrorMessage(failure, RESET_REQUEST_FAILED_MESSAGE));
    }
  }

  return { requestReset, loading, sent, error };
}
