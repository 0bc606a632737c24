// REST paths (docs/product.md, REST API) for accounts and sessions, each a row of this operation table
// (http/operations.ts):
//   POST /api/auth/register { email, password, password2 }  → { token, user } (201)
//   POST /api/auth/login { email, password }                 → { token, user }, or { twoFactorRequired, challengeToken }
//   POST /api/auth/login/two-factor { challengeToken, code } → { token, user }
//   GET  /api/auth/current                                   → the user
//   GET  /api/auth/logout                                    → { message }
import type { Request } from 'express';
import { clientIp } from '@parley/common/http.ts';
import type { Clients } from '../../http/clients.ts';
import { bearerToken } from '../../access/bearer.ts';
import { completeTwoFactorLogin, login, logout, register, type SignedIn } from '../../access/sessions.ts';
import { composeUser } from '../../access/users.ts';
import { accountOwner, currentUser, restCaller } from '../../access/members.ts';
import { operation, type Operation } from '../../http/operations.ts';
import { jsonBody, text } from '../../http/input.ts';
import { restUser } from './auth.ts';

// The plan and credit shown are those of the workspace the new session acts in (none for a person in none).
const sessionAnswer = async (clients: Clients, req: Request, { token, user }: SignedIn) => ({
  token,
  user: restUser(await composeUser(clients, user, await accountOwner(clients, { ...restCaller(req), token }, user))),
});

export const authOperations: Operation[] = [
  operation(
    {
      method: 'POST',
      path: '/api/auth/register',
      who: 'public',
      status: 201,
      body: jsonBody({ email: text('email'), password: text('password'), password2: text('password2') }),
    },
    async ({ app: { clients }, body, req }) => {
      const { token, user } = await register(clients, { ...body, clientIp: clientIp(req) });
      return { token, user: restUser(await composeUser(clients, user)) };
    },
  ),
  operation(
    { method: 'POST', path: '/api/auth/login', who: 'public', body: jsonBody({ email: text('email'), password: text('password') }) },
    async ({ app: { clients }, body, req }) => {
      const outcome = await login(clients, { ...body, clientIp: clientIp(req) });
      if ('twoFactorChallenge' in outcome) return { twoFactorRequired: true, challengeToken: outcome.twoFactorChallenge };
      return sessionAnswer(clients, req, outcome);
    },
  ),
  operation(
    {
      method: 'POST',
      path: '/api/auth/login/two-factor',
      who: 'public',
      body: jsonBody({ challengeToken: text('challengeToken'), code: text('code') }),
    },
    async ({ app: { clients }, body, req }) =>
      sessionAnswer(clients, req, await completeTwoFactorLogin(clients, { ...body, clientIp: clientIp(req) })),
  ),
  operation({ method: 'GET', path: '/api/auth/current', who: 'session' }, async ({ app: { clients }, req }) => {
    const { user, ownerId } = await currentUser(clients, restCaller(req));
    return restUser(await composeUser(clients, user, ownerId));
  }),
  // Anyone may sign out: the client clears its session whatever happens; this revokes the token
  // server-side when one is sent (an unknown or already revoked one is fine).
  operation({ method: 'GET', path: '/api/auth/logout', who: 'public' }, async ({ app: { clients }, req }) => {
    await logout(clients, bearerToken(req));
    return { message: 'Logged out' };
  }),
];
