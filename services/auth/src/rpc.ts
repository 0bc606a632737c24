// The AuthService over ConnectRPC: maps proto messages to the use cases and back, nothing more.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ConnectRouter } from '@connectrpc/connect';
import { AuthService, UserSchema, type User } from '@parley/proto/parley/auth/v1/auth_pb.js';
import type { AccountUser } from './accounts/account-user.ts';
import { register, type RegisterDeps } from './accounts/register.ts';
import { authenticate } from './sessions/authenticate.ts';
import { login, type LoginDeps } from './sessions/login.ts';
import { logout } from './sessions/logout.ts';

export type AuthRpcDeps = RegisterDeps & LoginDeps;

const toUser = (u: AccountUser): User => create(UserSchema, { id: u.id, email: u.email, name: u.name, createdAt: timestampFromDate(u.createdAt) });

export function authRoutes(deps: AuthRpcDeps) {
  return (router: ConnectRouter) => {
    router.service(AuthService, {
      async register(req) {
        const r = await register(deps, {
          email: req.email,
          password: req.password,
          passwordConfirmation: req.passwordConfirmation,
          name: req.name,
          clientIp: req.clientIp,
        });
        return { token: r.token, user: toUser(r.user), expiresAt: timestampFromDate(r.expiresAt) };
      },
      async login(req) {
        const r = await login(deps, { email: req.email, password: req.password, clientIp: req.clientIp });
        return { token: r.token, user: toUser(r.user), expiresAt: timestampFromDate(r.expiresAt) };
      },
      async logout(req) {
        await logout(deps.db, req.token);
        return {};
      },
      async authenticate(req) {
        return { user: toUser(await authenticate(deps.db, req.token)) };
      },
    });
  };
}
