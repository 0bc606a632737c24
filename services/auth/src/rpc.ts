// The AuthService over ConnectRPC: maps proto messages to the use cases and back, nothing more.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ConnectRouter } from '@connectrpc/connect';
import { AuthService, SessionInfoSchema, UserSchema, type User } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { WorkspaceSchema, type Workspace } from '@parley/proto/parley/auth/v1/workspaces_pb.js';
import type { AccountUser } from './core/account-user.ts';
import type { WorkspaceView } from './core/workspace.ts';
import { changeEmail, type ChangeEmailDeps } from './accounts/change-email.ts';
import { deleteAccount, type DeleteAccountDeps } from './accounts/delete-account.ts';
import { register, type RegisterDeps } from './accounts/register.ts';
import { updateProfile } from './accounts/update-profile.ts';
import { requestPasswordReset, type RequestPasswordResetDeps } from './password-reset/request-password-reset.ts';
import { resetPassword, type ResetPasswordDeps } from './password-reset/reset-password.ts';
import { changePassword, type ChangePasswordDeps } from './passwords/change-password.ts';
import { authenticate } from './sessions/authenticate.ts';
import { listSessions } from './sessions/list-sessions.ts';
import { login, type LoginDeps } from './sessions/login.ts';
import { logout } from './sessions/logout.ts';
import { revokeOtherSessions } from './sessions/revoke-other-sessions.ts';

export type AuthRpcDeps = RegisterDeps &
  LoginDeps &
  RequestPasswordResetDeps &
  ResetPasswordDeps &
  ChangeEmailDeps &
  ChangePasswordDeps &
  DeleteAccountDeps;

const toUser = (u: AccountUser): User =>
  create(UserSchema, { id: u.id, email: u.email, name: u.name, createdAt: timestampFromDate(u.createdAt) });

export const toWorkspace = (w: WorkspaceView): Workspace =>
  create(WorkspaceSchema, {
    id: w.id,
    name: w.name,
    personal: w.personal,
    createdAt: timestampFromDate(w.createdAt),
    role: w.role,
    memberCount: w.memberCount,
  });

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
        const { user, workspace } = await authenticate(deps.db, req.token, req.workspaceId);
        return { user: toUser(user), workspace: workspace && toWorkspace(workspace) };
      },
      async requestPasswordReset(req) {
        await requestPasswordReset(deps, { email: req.email, clientIp: req.clientIp });
        return {};
      },
      async resetPassword(req) {
        await resetPassword(deps, { token: req.token, password: req.password, passwordConfirmation: req.passwordConfirmation });
        return {};
      },
      async updateProfile(req) {
        return { user: toUser(await updateProfile(deps.db, { userId: req.userId, name: req.name })) };
      },
      async changeEmail(req) {
        const user = await changeEmail(deps, {
          userId: req.userId,
          currentPassword: req.currentPassword,
          newEmail: req.newEmail,
          clientIp: req.clientIp,
        });
        return { user: toUser(user) };
      },
      async changePassword(req) {
        const revoked = await changePassword(deps, {
          userId: req.userId,
          currentPassword: req.currentPassword,
          newPassword: req.newPassword,
          newPasswordConfirmation: req.newPasswordConfirmation,
          keepToken: req.keepToken,
          clientIp: req.clientIp,
        });
        return { revokedSessions: revoked };
      },
      async listSessions(req) {
        const sessions = await listSessions(deps.db, { userId: req.userId, currentToken: req.currentToken });
        return {
          sessions: sessions.map((s) =>
            create(SessionInfoSchema, {
              id: s.id,
              createdAt: timestampFromDate(s.createdAt),
              expiresAt: timestampFromDate(s.expiresAt),
              clientIp: s.clientIp,
              current: s.current,
            }),
          ),
        };
      },
      async revokeOtherSessions(req) {
        return { revokedSessions: await revokeOtherSessions(deps.db, { userId: req.userId, keepToken: req.keepToken }) };
      },
      async deleteAccount(req) {
        await deleteAccount(deps, { userId: req.userId, password: req.password, clientIp: req.clientIp });
        return {};
      },
    });
  };
}
