import { useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { CreateIdentitySecretMutation, IdentityVerificationQuery } from '../graphql/identity-verification';

export const IDENTITY_FAILED_MESSAGE = 'Could not make the identity secret. Try again.';

/**
 * The chatbot's identity verification (docs/product.md, Identity verification): whether it has a
 * secret, and making one (a roll when it has one). The new secret is kept in this hook's state only,
 * the one time it is shown; it is never cached or fetched again.
 */
export function useIdentityVerification(chatbotId: string) {
  const { data, loading, refetch } = useQuery(IdentityVerificationQuery, { variables: { chatbotId }, fetchPolicy: 'cache-and-network' });
  const [mutate, { loading: creating }] = useMutation(CreateIdentitySecretMutation, { fetchPolicy: 'no-cache' });
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function create() {
    setError(null);
    try {
      const result = await mutate({ variables: { chatbotId } });
      setSecret(result.data?.createIdentitySecret.secret ?? null);
      await refetch();
    } catch (err) {
      setError(graphqlErrorMessage(err) ?? IDENTITY_FAILED_MESSAGE);
    }
  }

  return { status: data?.identityVerification ?? null, loading: loading && !data, creating, secret, error, create };
}
