// Sign-up, sign-in, sign-out and token resolution: thin calls to the auth service shared by REST and
// GraphQL. The auth service owns every rule and message; the gateway only adds the client's IP.
import { Code, ConnectError, unauthenticated } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../http/clients.ts';
import type { AuthUser } from './users.ts';

export const NO_TOKEN_MESSAGE = 'Not authorized, no token';

export interface SignedIn {
  token: string;
  user: AuthUser;
}

export async function register(
  clients: Clients,
  input: { email: string; password: string; password2: string; clientIp: string },
): Promise<SignedIn> {
  const res = await clients.auth.register({
    email: input.email,
    password: input.password,
    passwordConfirmation: input.password2,
    clientIp: input.clientIp,
  });
  return signedIn(res);
}

/** The password step of an account with two-factor sign-in on: no session yet, the token of the code step. */
export interface TwoFactorChallenge {
  twoFactorChallenge: string;
}

export async function login(
  clients: Clients,
  input: { email: string; password: string; clientIp: string },
): Promise<SignedIn | TwoFactorChallenge> {
  const res = await clients.auth.login(input);
  if (res.twoFactorChallenge) return { twoFactorChallenge: res.twoFactorChallenge };
  return signedIn(res);
}

/** The code step: the challenge and a TOTP or recovery code open the session. */
export async function completeTwoFactorLogin(
  clients: Clients,
  input: { challengeToken: string; code: string; clientIp: string },
): Promise<SignedIn> {
  return signedIn(
    await clients.auth.completeTwoFactorLogin({ challenge: input.challengeToken, code: input.code, clientIp: input.clientIp }),
  );
}

/** Revokes the token if there is one; an unknown or already revoked token is fine. */
export async function logout(clients: Clients, token: string | undefined): Promise<void> {
  if (token) await clients.auth.logout({ token });
}

/** The user a bearer token belongs to, or UNAUTHENTICATED. */
export async function authenticate(clients: Clients, token: string | undefined): Promise<AuthUser> {
  if (!token) throw unauthenticated(NO_TOKEN_MESSAGE);
  const { user } = await clients.auth.authenticate({ token });
  if (!user) throw new ConnectError('auth returned no user', Code.Internal);
  return user;
}

function signedIn(res: { token: string; user?: AuthUser }): SignedIn {
  if (!res.user || !res.token) throw new ConnectError('auth returned no session', Code.Internal);
  return { token: res.token, user: res.user };
}
