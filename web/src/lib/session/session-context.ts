import { createContext, useContext } from 'react';
import type { SessionUser } from './session-user';

export interface Session {
  user: SessionUser | null;
  isAuthenticated: boolean;
  /** True until the stored token has been checked with the server. */
  loading: boolean;
  /** Why the stored session could not be restored, e.g. "Session expired. Please login again.". */
  error: string | null;
  /** Stores the token and user after a successful login or registration. */
  signIn: (token: string, user: SessionUser) => void;
  /** Revokes the token on the server when possible, then always forgets the session locally. */
  logout: () => Promise<void>;
  /**
   * Forgets the session on this device only (token, user, cached data), without asking the server:
   * for when the server has already ended it, e.g. the account was deleted or the password reset.
   */
  endLocally: () => Promise<void>;
  /** Shows a user the server just answered with (a profile or email change) everywhere at once. */
  updateUser: (user: SessionUser) => void;
  /**
   * Asks the server for the signed-in user again, e.g. after a checkout changed the plan or credit.
   * A failure keeps the user shown so far (only logged); resolves to the fresh user, or null.
   */
  refreshUser: () => Promise<SessionUser | null>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession must be used inside <SessionProvider>');
  return session;
}
