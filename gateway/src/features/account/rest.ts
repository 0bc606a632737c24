// REST twins of the account page and password reset (docs/product.md, Password reset and the account page),
// each a row of this operation table (http/operations.ts). The account rows are the signed-in person's
// own (a session, no workspace); the portal acts in the request's workspace with billing:manage.
//   POST /api/auth/forgot-password { email }            → { message } (the same whatever the email)
//   POST /api/auth/reset-password { token, password, password2 } → { message }
//   PUT  /api/user/profile { name }                     → the user
//   PUT  /api/user/email { email, currentPassword }     → the user
//   PUT  /api/user/password { currentPassword, password, password2 } → { message, revokedSessions }
//   GET  /api/user/sessions                             → { sessions }
//   POST /api/user/sessions/revoke-others               → { revokedSessions }
//   DELETE /api/user/account { password }               → { message }
//   GET  /api/user/two-factor                           → { enabled, recoveryCodesLeft }
//   POST /api/user/two-factor/enrolment                 → { otpauthUri, secret }
//   POST /api/user/two-factor/enrolment/confirm { code } → { recoveryCodes }
//   DELETE /api/user/two-factor { password, code }      → { message }
//   POST /api/user/two-factor/recovery-codes { password, code } → { recoveryCodes }
//   GET  /api/user/export                               → the owner's data as a JSON file
//   POST /api/payment/portal-session                    → { url }
import { clientIp } from '@parley/common/http.ts';
import {
  billingPortalUrl,
  changeEmail,
  changePassword,
  confirmTwoFactorEnrolment,
  deleteAccount,
  disableTwoFactor,
  regenerateRecoveryCodes,
  startTwoFactorEnrolment,
  twoFactorStatus,
  TWO_FACTOR_DISABLED_MESSAGE,
  listSessions,
  requestPasswordReset,
  resetPassword,
  signOutOtherSessions,
  updateProfile,
  ACCOUNT_DELETED_MESSAGE,
  type Caller,
} from './account.ts';
import type { Clients } from '../../http/clients.ts';
import { bearerToken } from '../../access/bearer.ts';
import { sendOwnerExport } from './owner-export.ts';
import { accountOwner, restCaller } from '../../access/members.ts';
import { composeUser, type AuthUser } from '../../access/users.ts';
import { restUser } from '../auth/auth.ts';
import { operation, type Call, type Operation } from '../../http/operations.ts';
import { jsonBody, text } from '../../http/input.ts';

export const passwordChangedMessage = (revoked: number) =>
  revoked > 0 ? `Password changed. ${revoked} other ${revoked === 1 ? 'device was' : 'devices were'} signed out.` : 'Password changed.';

const who = 'session';

/** The signed-in person a row's session checked, with their token and address. */
const caller = ({ req, user }: Call): Caller => ({ token: bearerToken(req), clientIp: clientIp(req), user });

/** The user a change answers, with the plan and credit of the workspace the request acts in. */
const changedUser = async (clients: Clients, call: Call, user: AuthUser) =>
  restUser(await composeUser(clients, user, await accountOwner(clients, restCaller(call.req), user)));

/** What turning two-factor sign-in off, or new recovery codes, asks for. */
const confirmation = jsonBody({ password: text('password'), code: text('code') });

export const accountOperations: Operation[] = [
  // The two steps of a password reset (no sign-in needed).
  operation(
    { method: 'POST', path: '/api/auth/forgot-password', who: 'public', body: jsonBody({ email: text('email') }) },
    async ({ app: { clients }, body, req }) => ({
      message: await requestPasswordReset(clients, { email: body.email, clientIp: clientIp(req) }),
    }),
  ),
  operation(
    {
      method: 'POST',
      path: '/api/auth/reset-password',
      who: 'public',
      body: jsonBody({ token: text('token'), password: text('password'), password2: text('password2') }),
    },
    async ({ app: { clients }, body }) => ({ message: await resetPassword(clients, body) }),
  ),

  // The signed-in person's own account.
  operation({ method: 'PUT', path: '/api/user/profile', who, body: jsonBody({ name: text('name') }) }, async (call) =>
    changedUser(call.app.clients, call, await updateProfile(call.app.clients, caller(call), call.body.name)),
  ),
  operation(
    { method: 'PUT', path: '/api/user/email', who, body: jsonBody({ email: text('email'), currentPassword: text('currentPassword') }) },
    async (call) => changedUser(call.app.clients, call, await changeEmail(call.app.clients, caller(call), call.body)),
  ),
  operation(
    {
      method: 'PUT',
      path: '/api/user/password',
      who,
      body: jsonBody({ currentPassword: text('currentPassword'), password: text('password'), password2: text('password2') }),
    },
    async (call) => {
      const revokedSessions = await changePassword(call.app.clients, caller(call), call.body);
      return { message: passwordChangedMessage(revokedSessions), revokedSessions };
    },
  ),
  operation({ method: 'GET', path: '/api/user/sessions', who }, async (call) => ({
    sessions: await listSessions(call.app.clients, caller(call)),
  })),
  operation({ method: 'POST', path: '/api/user/sessions/revoke-others', who }, async (call) => ({
    revokedSessions: await signOutOtherSessions(call.app.clients, caller(call)),
  })),
  operation({ method: 'DELETE', path: '/api/user/account', who, body: jsonBody({ password: text('password') }) }, async (call) => {
    await deleteAccount(call.app.clients, caller(call), call.body.password);
    return { message: ACCOUNT_DELETED_MESSAGE };
  }),
  operation({ method: 'GET', path: '/api/user/two-factor', who }, async (call) => twoFactorStatus(call.app.clients, caller(call))),
  operation({ method: 'POST', path: '/api/user/two-factor/enrolment', who }, async (call) =>
    startTwoFactorEnrolment(call.app.clients, caller(call)),
  ),
  operation(
    { method: 'POST', path: '/api/user/two-factor/enrolment/confirm', who, body: jsonBody({ code: text('code') }) },
    async (call) => ({ recoveryCodes: await confirmTwoFactorEnrolment(call.app.clients, caller(call), call.body.code) }),
  ),
  operation({ method: 'DELETE', path: '/api/user/two-factor', who, body: confirmation }, async (call) => {
    await disableTwoFactor(call.app.clients, caller(call), call.body);
    return { message: TWO_FACTOR_DISABLED_MESSAGE };
  }),
  operation({ method: 'POST', path: '/api/user/two-factor/recovery-codes', who, body: confirmation }, async (call) => ({
    recoveryCodes: await regenerateRecoveryCodes(call.app.clients, caller(call), call.body),
  })),
  // A file written as it is read: the handler answers itself.
  operation({ method: 'GET', path: '/api/user/export', who }, async ({ app: { clients, catalogue, logger }, req, res, user }) => {
    await sendOwnerExport(clients, catalogue, { user, token: bearerToken(req) }, res, logger);
  }),

  // Where a pro workspace's owner manages the subscription.
  operation(
    { method: 'POST', path: '/api/payment/portal-session', who, permission: 'billing:manage' },
    async ({ app: { clients, publicUrl }, member }) => ({ url: await billingPortalUrl(clients, member, publicUrl) }),
  ),
];
