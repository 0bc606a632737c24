// REST twins of the account page and password reset (docs/product.md, Password reset and the account page):
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
import { Router } from 'express';
import { clientIp } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
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
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { Clients } from '../../http/clients.ts';
import { bearerToken } from '../../http/context.ts';
import { sendOwnerExport } from './owner-export.ts';
import { accountOwner, restCaller, routeMember } from '../../access/members.ts';
import { composeUser } from '../../access/users.ts';
import { restUser } from '../auth/rest.ts';
import { jsonObject, stringField } from '../../http/input.ts';

const caller = (req: Parameters<typeof bearerToken>[0]): Caller => ({ token: bearerToken(req), clientIp: clientIp(req) });

export const passwordChangedMessage = (revoked: number) =>
  revoked > 0 ? `Password changed. ${revoked} other ${revoked === 1 ? 'device was' : 'devices were'} signed out.` : 'Password changed.';

/** Mounted under /api/auth: the two steps of a password reset (no sign-in needed). */
export function passwordResetRoutes(clients: Clients): Router {
  const router = Router();
  router.post('/forgot-password', async (req, res) => {
    const body = jsonObject(req.body);
    res.json({ message: await requestPasswordReset(clients, { email: stringField(body, 'email'), clientIp: clientIp(req) }) });
  });
  router.post('/reset-password', async (req, res) => {
    const body = jsonObject(req.body);
    const message = await resetPassword(clients, {
      token: stringField(body, 'token'),
      password: stringField(body, 'password'),
      password2: stringField(body, 'password2'),
    });
    res.json({ message });
  });
  return router;
}

/** Mounted under /api/user: the signed-in owner's account. */
export function accountRoutes(clients: Clients, opts: { logger: Logger; catalogue: ModelCatalogue }): Router {
  const router = Router();
  router.put('/profile', async (req, res) => {
    const user = await updateProfile(clients, caller(req), stringField(jsonObject(req.body), 'name'));
    res.json(restUser(await composeUser(clients, user, await accountOwner(clients, restCaller(req), user))));
  });
  router.put('/email', async (req, res) => {
    const body = jsonObject(req.body);
    const user = await changeEmail(clients, caller(req), {
      email: stringField(body, 'email'),
      currentPassword: stringField(body, 'currentPassword'),
    });
    res.json(restUser(await composeUser(clients, user, await accountOwner(clients, restCaller(req), user))));
  });
  router.put('/password', async (req, res) => {
    const body = jsonObject(req.body);
    const revokedSessions = await changePassword(clients, caller(req), {
      currentPassword: stringField(body, 'currentPassword'),
      password: stringField(body, 'password'),
      password2: stringField(body, 'password2'),
    });
    res.json({ message: passwordChangedMessage(revokedSessions), revokedSessions });
  });
  router.get('/sessions', async (req, res) => {
    res.json({ sessions: await listSessions(clients, caller(req)) });
  });
  router.post('/sessions/revoke-others', async (req, res) => {
    res.json({ revokedSessions: await signOutOtherSessions(clients, caller(req)) });
  });
  router.delete('/account', async (req, res) => {
    await deleteAccount(clients, caller(req), stringField(jsonObject(req.body), 'password'));
    res.json({ message: ACCOUNT_DELETED_MESSAGE });
  });
  router.get('/two-factor', async (req, res) => {
    res.json(await twoFactorStatus(clients, caller(req)));
  });
  router.post('/two-factor/enrolment', async (req, res) => {
    res.json(await startTwoFactorEnrolment(clients, caller(req)));
  });
  router.post('/two-factor/enrolment/confirm', async (req, res) => {
    res.json({ recoveryCodes: await confirmTwoFactorEnrolment(clients, caller(req), stringField(jsonObject(req.body), 'code')) });
  });
  const confirmation = (body: unknown) => {
    const fields = jsonObject(body);
    return { password: stringField(fields, 'password'), code: stringField(fields, 'code') };
  };
  router.delete('/two-factor', async (req, res) => {
    await disableTwoFactor(clients, caller(req), confirmation(req.body));
    res.json({ message: TWO_FACTOR_DISABLED_MESSAGE });
  });
  router.post('/two-factor/recovery-codes', async (req, res) => {
    res.json({ recoveryCodes: await regenerateRecoveryCodes(clients, caller(req), confirmation(req.body)) });
  });
  router.get('/export', async (req, res) => {
    await sendOwnerExport(clients, opts.catalogue, bearerToken(req), res, opts.logger);
  });
  return router;
}

/** Mounted under /api/payment: where a pro owner manages the subscription. */
export function portalRoutes(clients: Clients, opts: { publicUrl: string }): Router {
  const router = Router();
  router.post('/portal-session', async (req, res) => {
    res.json({ url: await billingPortalUrl(clients, await routeMember(clients, req), opts.publicUrl) });
  });
  return router;
}
