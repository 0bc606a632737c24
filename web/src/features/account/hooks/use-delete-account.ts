import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { withNotice } from '../../../lib/route-notice';
import { useSession } from '../../../lib/session/session-context';
import { DeleteAccountMutation } from '../graphql/delete-account-mutation';

export const DELETE_ACCOUNT_CONFIRMATION = 'Are you sure you want to delete your account? This cannot be undone.';
export const ACCOUNT_DELETED_MESSAGE = 'Your account has been deleted.';
export const DELETE_PASSWORD_REQUIRED_MESSAGE = 'Please enter your password to delete your account.';
export const DELETE_FAILED_MESSAGE = 'Could not delete your account. Please try again.';

/**
 * Deletes the account, confirmed with the password and a last "Are you sure?". The server has then
 * ended every session, so this one is forgotten locally and the owner lands on the home page.
 */
export function useDeleteAccount() {
  const session = useSession();
  const navigate = useNavigate();
  const [mutate, { loading }] = useMutation(DeleteAccountMutation);
  const [error, setError] = useState<string | null>(null);

  async function deleteAccount(password: string): Promise<void> {
    if (!password) {
      setError(DELETE_PASSWORD_REQUIRED_MESSAGE);
      return;
    }
    if (!window.confirm(DELETE_ACCOUNT_CONFIRMATION)) return;
    setError(null);
    try {
      const { data } = await mutate({ variables: { password } });
      if (!data?.deleteAccount) throw new Error('deleteAccount answered false');
    } catch (failure) {
      setError(userFacingErrorMessage(failure, DELETE_FAILED_MESSAGE));
      return;
    }
    // Leave the protected page first, and have React show the home page before the session is
    // forgotten (flushSync: the router would otherwise render in a transition, after the sign-out,
    // and the protected page's guard would send the owner to /login instead).
    await navigate('/', { replace: true, flushSync: true, state: withNotice(ACCOUNT_DELETED_MESSAGE) });
    await session.endLocally();
  }

  return { deleteAccount, deleting: loading, error };
}
