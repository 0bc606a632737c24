import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { graphqlErrorCode, graphqlErrorMessage, userFacingErrorMessage } from '../../../lib/graphql-errors';
import { useSession } from '../../../lib/session/session-context';
import { CompleteTwoFactorLoginMutation } from '../graphql/complete-two-factor-login-mutation';
import { LoginMutation } from '../graphql/login-mutation';
import { validateLogin, type LoginValues } from '../validation';

export const INVALID_CREDENTIALS_MESSAGE = 'Invalid credentials';
export const TWO_FACTOR_CODE_REQUIRED_MESSAGE = 'Please enter the 6-digit code from your authenticator app, or a recovery code.';
export const TWO_FACTOR_FAILED_MESSAGE = 'Could not check the code. Please try again.';
/** The gateway's words for a challenge that expired or was used (auth's TWO_FACTOR_CHALLENGE_INVALID). */
export const SIGN_IN_EXPIRED_MESSAGE = 'Your sign-in has expired. Please log in again.';

// A lock-out is not a wrong password: telling the user to wait is the only helpful answer.
const RATE_LIMIT_CODES = new Set(['RATE_LIMITED', 'TOO_MANY_REQUESTS']);

/**
 * Validates, logs in and signs the session in; owns the message the login form shows. For an account
 * with two-factor sign-in on, the password answers a challenge: `challenge` is then set and
 * `verify(code)` is the second step.
 */
export function useLogin() {
  const session = useSession();
  const [mutate, { loading }] = useMutation(LoginMutation);
  const [complete, { loading: verifying }] = useMutation(CompleteTwoFactorLoginMutation);
  const [error, setError] = useState<string | null>(null);
  const [challenge, setChallenge] = useState<string | null>(null);

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
      const { token, user, twoFactorChallenge } = data.login;
      if (twoFactorChallenge) {
        setChallenge(twoFactorChallenge);
        return false;
      }
      if (!token || !user) throw new Error('login answered no session');
      session.signIn(token, user);
      return true;
    } catch (failure) {
      const code = graphqlErrorCode(failure);
      const message = graphqlErrorMessage(failure);
      // A workspace that requires single sign-on names the way in (after a right password only).
      const ssoRequired = code === 'BAD_USER_INPUT' && message?.includes('single sign-on');
      setError((code && (RATE_LIMIT_CODES.has(code) || ssoRequired) && message) || INVALID_CREDENTIALS_MESSAGE);
      return false;
    }
  }

  /** The second step: a TOTP code or a recovery code. An expired challenge goes back to the password. */
  async function verify(code: string): Promise<boolean> {
    if (!challenge) return false;
    if (!code.trim()) {
      setError(TWO_FACTOR_CODE_REQUIRED_MESSAGE);
      return false;
    }
    setError(null);
    try {
      const { data } = await complete({ variables: { input: { challengeToken: challenge, code: code.trim() } } });
      if (!data) throw new Error('empty completeTwoFactorLogin response');
      session.signIn(data.completeTwoFactorLogin.token, data.completeTwoFactorLogin.user);
      return true;
    } catch (failure) {
      const message = userFacingErrorMessage(failure, TWO_FACTOR_FAILED_MESSAGE);
      if (message === SIGN_IN_EXPIRED_MESSAGE) setChallenge(null);
      setError(message);
      return false;
    }
  }

  /** Back to the password step. */
  function restart() {
    setChallenge(null);
    setError(null);
  }

  return { login, loading, error, challenge, verify, verifying, restart };
}
