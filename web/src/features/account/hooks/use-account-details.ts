import { useQuery } from '@apollo/client/react';
import { useEffect } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useSession } from '../../../lib/session/session-context';
import { AccountDetailsQuery } from '../graphql/account-details-query';

/**
 * The signed-in user, asked afresh when the account page opens: the plan may have changed in the
 * billing portal, the name or email in another tab. The answer also refreshes the session, so the
 * header and the dashboard agree with this page. A failure is only logged: the page then shows
 * what the session knows.
 */
export function useAccountDetails() {
  const { updateUser } = useSession();
  const { data, loading, error } = useQuery(AccountDetailsQuery, { fetchPolicy: 'network-only' });
  const me = data?.me;

  useEffect(() => {
    if (me) updateUser(me);
  }, [me, updateUser]);

  useEffect(() => {
    if (error) console.error('Failed to load the account', graphqlErrorMessage(error) ?? error);
  }, [error]);

  return { createdAt: me?.createdAt ?? null, loading: loading && !data };
}
