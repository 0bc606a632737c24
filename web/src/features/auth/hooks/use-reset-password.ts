import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import type { NewPasswordValues } from '../../../lib/password-rules';
import { useSession } from '../../../lib/session/session-context';
import { ResetPasswordMutation } from '../graphql/reset-password-mutation';
import { validateResetPassword } from '../validation';

/** What the login page says afterwards when the server's answer carries no text of its own. */
export const PASSWORD_RESET_MESSAGE = 'Your password has been reset. Please sign in with your new password.';
export const RESET_FAILED_MESSAGE = 'Could not reset your password. Please try again.';

/**
 * Sets the new password from a reset link. Resolves to the success message for the login page, or
 * null when the form shows an error (the client's check, or the server's: an invalid, expired or
 * used link).
 */
export function useResetPassword() {
  const session = useSession();
  const [mutate, { loading }] = useMutation(ResetPasswordMutation);
  const [error, setError] = useState<string | null>(null);
  // The server refused (e.g. a used link): the form then offers a new link; a typo needs none.
  const [fromServer, setFromServer] = useState(false);

  async function resetPassword(token: string, values: NewPasswordValues): Promise<string | null> {
    const invalid = validateResetPassword(values);
    setError(invalid);
    setFromServer(false);
    if (invalid) return null;
    try {
      const { data } = await mutate({
        variables: { input: { token, password: values.password, password2: values.password2 } },
      });
      // A reset signs out every session, this browser's too if it was signed in (or still checking
      // its stored token): forget it here, or the login page would take it for a live one.
      await session.endLocally();
      return data?.resetPassword || PASSWORD_RESET_MESSAGE;
    } catch (failure) {
      setError(userFacingErrorMessage(failure, RESET_FAILED_MESSAGE));
      setFromServer(true);
      return null;
    }
  }

  return { resetPassword, loading, error, offerNewLink: error !== null && fromServer };
}
