import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { graphqlErrorCode, graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useSession } from '../../../lib/session/session-context';
import { RegisterMutation } from '../graphql/register-mutation';
import { validateRegister, type RegisterValues } from '../validation';

export const REGISTRATION_FAILED_MESSAGE = 'Registration failed. Please try again.';

/** Validates, registers and signs the session in; owns the message the registration form shows. */
export function useRegister() {
  const session = useSession();
  const [mutate, { loading }] = useMutation(RegisterMutation);
  const [error, setError] = useState<string | null>(null);

  async function register(values: RegisterValues): Promise<boolean> {
    const invalid = validateRegister(values);
    if (invalid) {
      setError(invalid);
      return false;
    }
    setError(null);
    try {
      const { data } = await mutate({
        variables: { input: { email: values.email.trim(), password: values.password, password2: values.password2 } },
      });
      if (!data) throw new Error('empty register response');
      session.signIn(data.register.token, data.register.user);
      return true;
    } catch (failure) {
      // The server's text (e.g. a duplicate email) is user-facing; an internal error's is not.
      const serverMessage = graphqlErrorCode(failure) === 'INTERNAL_SERVER_ERROR' ? undefined : graphqlErrorMessage(failure);
      setError(serverMessage ?? REGISTRATION_FAILED_MESSAGE);
      return false;
    }
  }

  return { register, loading, error };
}
