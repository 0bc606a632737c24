import { useApolloClient } from '@apollo/client/react';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { graphqlErrorCode } from '../graphql-errors';
import { clearToken, readToken, writeToken } from '../token-storage';
import { LogoutMutation } from './graphql/logout-mutation';
import { MeQuery } from './graphql/me-query';
import { SessionContext, type Session } from './session-context';
import { normalizeSessionUser, type SessionUser } from './session-user';

export const SESSION_EXPIRED_MESSAGE = 'Session expired. Please login again.';
export const AUTHENTICATION_FAILED_MESSAGE = 'Authentication failed';

interface SessionState {
  user: SessionUser | null;
  loading: boolean;
  error: string | null;
}

/**
 * Owns the session rules (docs/product.md, Accounts and sessions): restore the stored token by asking for `me`, sign in after
 * login/registration, and sign out (server first, then always locally).
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const client = useApolloClient();
  const [state, setState] = useState<SessionState>(() => ({ user: null, loading: readToken() !== null, error: null }));
  // Bumped on every sign-in/out so a slow `me` answer cannot overwrite a newer session.
  const generation = useRef(0);

  useEffect(() => {
    if (readToken() === null) {
      setState((s) => ({ ...s, loading: false }));
      return;
    }
    const started = generation.current;
    const current = () => generation.current === started;
    client
      .query({ query: MeQuery, fetchPolicy: 'network-only' })
      .then(({ data }) => {
        if (!current()) return;
        if (!data) throw new Error('empty me response');
        setState({ user: normalizeSessionUser(data.me), loading: false, error: null });
      })
      .catch((error: unknown) => {
        if (!current()) return;
        if (graphqlErrorCode(error) === 'UNAUTHENTICATED') {
          clearToken();
          setState({ user: null, loading: false, error: SESSION_EXPIRED_MESSAGE });
        } else {
          // The token may still be good (server down, network blip), so it is kept for the next visit.
          setState({ user: null, loading: false, error: AUTHENTICATION_FAILED_MESSAGE });
        }
      });
    return () => {
      // React's development double-mount: the first request's answer must be ignored.
      generation.current += 1;
    };
  }, [client]);

  const signIn = useCallback((token: string, user: SessionUser) => {
    generation.current += 1;
    writeToken(token);
    setState({ user: normalizeSessionUser(user), loading: false, error: null });
  }, []);

  const endLocally = useCallback(async () => {
    generation.current += 1;
    clearToken();
    setState({ user: null, loading: false, error: null });
    await client.clearStore();
  }, [client]);

  const logout = useCallback(async () => {
    generation.current += 1;
    try {
      if (readToken() !== null) await client.mutate({ mutation: LogoutMutation });
    } catch {
      // Logging out must work even when the server cannot be reached or the token is already gone.
    } finally {
      await endLocally();
    }
  }, [client, endLocally]);

  const updateUser = useCallback((user: SessionUser) => {
    // Only the signed-in user can be updated: an answer arriving after a sign-out changes nothing.
    setState((s) => (s.user && s.user.id === user.id ? { ...s, user: normalizeSessionUser(user) } : s));
  }, []);

  const refreshUser = useCallback(async (): Promise<SessionUser | null> => {
    if (readToken() === null) return null;
    const started = generation.current;
    try {
      const { data } = await client.query({ query: MeQuery, fetchPolicy: 'network-only' });
      // Signed out or in as someone else meanwhile: this answer is not about the current session.
      if (!data || generation.current !== started) return null;
      const user = normalizeSessionUser(data.me);
      setState((s) => (s.user ? { ...s, user } : s));
      return user;
    } catch (error) {
      console.error('Failed to refresh the signed-in user', graphqlErrorCode(error) ?? error);
      return null;
    }
  }, [client]);

  const session = useMemo<Session>(
    () => ({ ...state, isAuthenticated: state.user !== null, signIn, logout, endLocally, updateUser, refreshUser }),
    [state, signIn, logout, endLocally, updateUser, refreshUser],
  );

  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
