import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { graphqlErrorCode, graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useSession } from '../../../lib/session/session-context';
import { LoginMutation } from '../graphql/login-mutation';
import { validateLogin, type LoginValues } from '../validation';

export const INVALID_CREDENTIALS_MESSAGE = 'Invalid credentials';

// A lock-out is not a wrong password: telling the user to wait is the only helpful answer.
const RATE_LIMIT_CODES = new Set(['RATE_LIMITED', 'TOO_MANY_REQUESTS']);

/** Validates, logs in and signs the session in; owns the message the login form shows. */
export function useLogin() {
  const session = useSession();
  const [mutate, { loading }] = useMutation(LoginMutation);
  const [error, setError] = useState<string | null>(null);

  async function login(values: LoginValues): Promise<boolean> {
    const invalid = validateLogin(values);
    if (invalid) {
      setError(invalid);
      return false;
    }
    setError(null);
    try {
      const { data } = await mutate({ variables: { input: { email: values.email.trim(), password: values.password } } });
      if (!data) throw new Error('empty login response');
      session.signIn(data.login.token, data.login.user);
      return true;
    } catch (failure) {
      const code = graphqlErrorCode(failure);
      setError((code && RATE_LIMIT_CODES.has(code) && graphqlErrorMessage(failure)) || INVALID_CREDENTIALS_MESSAGE);
      return false;
    }
  }

  return { login, loading, error };
}
