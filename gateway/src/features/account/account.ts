// The account page, password reset and leaving, as the gateway sees them: thin calls shared by REST
// and GraphQL. The auth service owns every rule and message; the gateway authenticates the token,
// passes the user's id, the caller's token (the session that stays signed in) and the client's IP.
import type { SessionInfo } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { isoDate } from '../../http/dates.ts';
import type { Clients } from '../../http/clients.ts';
import type { Member } from '../../access/members.ts';
import { authenticate } from '../../access/sessions.ts';
import type { AuthUser } from '../../access/users.ts';
import { recordBillingAction } from '../workspaces/workspaces.ts';

/** The one answer to a reset request, whether or not an account has that email. */
export const RESET_REQUESTED_MESSAGE = "If an account exists for that email, we've sent a link.";
export const PASSWORD_RESET_MESSAGE = 'Your password has been reset. Please sign in with your new password.';
export const ACCOUNT_DELETED_MESSAGE = 'Your account has been deleted.';
export const TWO_FACTOR_DISABLED_MESSAGE = 'Two-factor sign-in is off.';

/** Where the billing portal sends the owner back to. */
export const ACCOUNT_PATH = '/account';

export interface Caller {
  token: string | undefined;
  clientIp: string;
  /** The token's user, when the caller was checked already (a REST operation's session); else the token is authenticated here. */
  user?: AuthUser;
}

/** The signed-in person the call is for. */
const signedIn = (clients: Clients, caller: Caller): Promise<AuthUser> =>
  caller.user ? Promise.resolve(caller.user) : authenticate(clients, caller.token);

export async function requestPasswordReset(clients: Clients, input: { email: string; clientIp: string }): Promise<string> {
  await clients.auth.requestPasswordReset({ email: input.email, clientIp: input.clientIp });
  return RESET_REQUESTED_MESSAGE;
}

export async function resetPassword(clients: Clients, input: { token: string; password: string; password2: string }): Promise<string> {
  await clients.auth.resetPassword({ token: input.token, password: input.password, passwordConfirmation: input.password2 });
  return PASSWORD_RESET_MESSAGE;
}

export async function updateProfile(clients: Clients, caller: Caller, name: string): Promise<AuthUser> {
  const user = await signedIn(clients, caller);
  return signedInUser((await clients.auth.updateProfile({ userId: user.id, name })).user);
}

export async function changeEmail(clients: Clients, caller: Caller, input: { email: string; currentPassword: string }): Promise<AuthUser> {
  const user = await signedIn(clients, caller);
  const res = await clients.auth.changeEmail({
    userId: user.id,
    newEmail: input.email,
    currentPassword: input.currentPassword,
    clientIp: caller.clientIp,
  });
  return signedInUser(res.user);
}

/** Returns how many other sessions were signed out. */
export async function changePassword(
  clients: Clients,
  caller: Caller,
  input: { currentPassword: string; password: string; password2: string },
): Promise<number> {
  const user = await signedIn(clients, caller);
  const res = await clients.auth.changePassword({
    userId: user.id,
    currentPassword: input.currentPassword,
    newPassword: input.password,
    newPasswordConfirmation: input.password2,
    keepToken: caller.token ?? '',
    clientIp: caller.clientIp,
  });
  return res.revokedSessions;
}

export interface SessionView {
  id: string;
  createdAt: string;
  expiresAt: string;
  clientIp: string | null;
  current: boolean;
}

const sessionView = (s: SessionInfo): SessionView => ({
  id: s.id,
  createdAt: isoDate(s.createdAt) ?? '',
  expiresAt: isoDate(s.expiresAt) ?? '',
  clientIp: s.clientIp || null,
  current: s.current,
});

export async function listSessions(clients: Clients, caller: Caller): Promise<SessionView[]> {
  const user = await signedIn(clients, caller);
  const { sessions } = await clients.auth.listSessions({ userId: user.id, currentToken: caller.token ?? '' });
  return sessions.map(sessionView);
}

export async function signOutOtherSessions(clients: Clients, caller: Caller): Promise<number> {
  const user = await signedIn(clients, caller);
  return (await clients.auth.revokeOtherSessions({ userId: user.id, keepToken: caller.token ?? '' })).revokedSessions;
}

export interface TwoFactorStatus {
  enabled: boolean;
  recoveryCodesLeft: number;
}

export async function twoFactorStatus(clients: Clients, caller: Caller): Promise<TwoFactorStatus> {
  const user = await signedIn(clients, caller);
  const { enabled, recoveryCodesLeft } = await clients.auth.getTwoFactorStatus({ userId: user.id });
  return { enabled, recoveryCodesLeft };
}

/** A new secret to scan (the otpauth:// URI) or type (the secret); not in use until confirmed. */
export async function startTwoFactorEnrolment(clients: Clients, caller: Caller): Promise<{ otpauthUri: string; secret: string }> {
  const user = await signedIn(clients, caller);
  const { otpauthUri, secret } = await clients.auth.startTwoFactorEnrolment({ userId: user.id });
  return { otpauthUri, secret };
}

/** Turns two-factor sign-in on; answers the recovery codes, shown once. */
export async function confirmTwoFactorEnrolment(clients: Clients, caller: Caller, code: string): Promise<string[]> {
  const user = await signedIn(clients, caller);
  return (await clients.auth.confirmTwoFactorEnrolment({ userId: user.id, code, clientIp: caller.clientIp })).recoveryCodes;
}

export async function disableTwoFactor(clients: Clients, caller: Caller, input: { password: string; code: string }): Promise<void> {
  const user = await signedIn(clients, caller);
  await clients.auth.disableTwoFactor({ userId: user.id, password: input.password, code: input.code, clientIp: caller.clientIp });
}

export async function regenerateRecoveryCodes(
  clients: Clients,
  caller: Caller,
  input: { password: string; code: string },
): Promise<string[]> {
  const user = await signedIn(clients, caller);
  const res = await clients.auth.regenerateRecoveryCodes({
    userId: user.id,
    password: input.password,
    code: input.code,
    clientIp: caller.clientIp,
  });
  return res.recoveryCodes;
}

/** Deletes the account; auth removes the user and its sessions at once and tells the other services. */
export async function deleteAccount(clients: Clients, caller: Caller, password: string): Promise<void> {
  const user = await signedIn(clients, caller);
  await clients.auth.deleteAccount({ userId: user.id, password, clientIp: caller.clientIp });
}

/** The URL of the page where a pro workspace's owner manages or cancels the subscription (recorded in its audit log). */
export async function billingPortalUrl(clients: Clients, member: Member, publicUrl: string): Promise<string> {
  const { url } = await clients.billing.createPortalSession({ ownerId: member.ownerId, returnUrl: new URL(ACCOUNT_PATH, publicUrl).href });
  await recordBillingAction(clients, member, 'billing.portal_opened', 'subscription');
  return url;
}

function signedInUser(user: AuthUser | undefined): AuthUser {
  if (!user) throw new Error('auth returned no user');
  return user;
}
