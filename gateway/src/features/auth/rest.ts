// REST paths (docs/product.md, REST API) for accounts and sessions: /api/auth/{register,login,login/two-factor,current,logout}.
import { Router, type Request } from 'express';
import { clientIp } from '@parley/common/http.ts';
import type { Clients } from '../../http/clients.ts';
import { bearerToken } from '../../http/context.ts';
import { completeTwoFactorLogin, login, logout, register, type SignedIn } from '../../access/sessions.ts';
import { composeUser, type UserView } from '../../access/users.ts';
import { accountOwner, currentUser, restCaller } from '../../access/members.ts';
import { jsonObject, stringField } from '../../http/input.ts';

/** The user as REST clients read it: `_id` mirrors `id`, and the credit balance is a JSON number. */
export function restUser(user: UserView) {
  return {
    id: user.id,
    _id: user.id,
    email: user.email,
    name: user.name,
    subscription: user.subscription,
    usage: { creditBalance: Number(user.usage.creditBalance), lastCreditRefill: user.usage.lastCreditRefill },
  };
}

export function authRoutes(clients: Clients): Router {
  const router = Router();

  router.post('/register', async (req, res) => {
    const body = jsonObject(req.body);
    const { token, user } = await register(clients, {
      email: stringField(body, 'email'),
      password: stringField(body, 'password'),
      password2: stringField(body, 'password2'),
      clientIp: clientIp(req),
    });
    res.status(201).json({ token, user: restUser(await composeUser(clients, user)) });
  });

  // The plan and credit shown are those of the workspace the new session acts in (none for a person in none).
  const sessionAnswer = async (req: Request, { token, user }: SignedIn) => ({
    token,
    user: restUser(await composeUser(clients, user, await accountOwner(clients, { ...restCaller(req), token }, user))),
  });

  router.post('/login', async (req, res) => {
    const body = jsonObject(req.body);
    const outcome = await login(clients, {
      email: stringField(body, 'email'),
      password: stringField(body, 'password'),
      clientIp: clientIp(req),
    });
    if ('twoFactorChallenge' in outcome) {
      res.json({ twoFactorRequired: true, challengeToken: outcome.twoFactorChallenge });
      return;
    }
    res.json(await sessionAnswer(req, outcome));
  });

  router.post('/login/two-factor', async (req, res) => {
    const body = jsonObject(req.body);
    const signedIn = await completeTwoFactorLogin(clients, {
      challengeToken: stringField(body, 'challengeToken'),
      code: stringField(body, 'code'),
      clientIp: clientIp(req),
    });
    res.json(await sessionAnswer(req, signedIn));
  });

  router.get('/current', async (req, res) => {
    const { user, ownerId } = await currentUser(clients, restCaller(req));
    res.json(restUser(await composeUser(clients, user, ownerId)));
  });

  // The client clears its session whatever happens; this revokes the token server-side when one is sent.
  router.get('/logout', async (req, res) => {
    await logout(clients, bearerToken(req));
    res.json({ message: 'Logged out' });
  });

  return router;
}
