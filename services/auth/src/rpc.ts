// The AuthService, the WorkspaceService and the ApiKeyService over ConnectRPC: map proto messages to
// the use cases and back, and announce each change of someone's access once it committed (so the
// streams they hold end), nothing more.
import type { AnnounceAccessChange } from '@parley/common/access-changes.ts';
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ConnectRouter } from '@connectrpc/connect';
import { ApiKeySchema, ApiKeyService, type ApiKey } from '@parley/proto/parley/auth/v1/api_keys_pb.js';
import { AuthService, SessionInfoSchema, UserSchema, type User } from '@parley/proto/parley/auth/v1/auth_pb.js';
import {
  AuditEventSchema,
  InvitationSchema,
  MemberSchema,
  WorkspaceSchema,
  WorkspaceService,
  type Actor,
  type AuditEvent,
  type Invitation,
  type Member,
  type Workspace,
} from '@parley/proto/parley/auth/v1/workspaces_pb.js';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import type { AccountUser } from './core/account-user.ts';
import type { WorkspaceView } from './core/workspace.ts';
import type { ApiKeyView } from './api-keys/api-keys.ts';
import { authenticateApiKey } from './api-keys/authenticate-api-key.ts';
import { createApiKey } from './api-keys/create-api-key.ts';
import { listApiKeys } from './api-keys/list-api-keys.ts';
import { revokeApiKey } from './api-keys/revoke-api-key.ts';
import { rollApiKey } from './api-keys/roll-api-key.ts';
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
import { acceptInvitation } from './workspaces/accept-invitation.ts';
import type { ActorInput } from './workspaces/access.ts';
import type { AuditEventView } from './workspaces/audit-events.ts';
import { changeMemberRole } from './workspaces/change-member-role.ts';
import { createInvitation } from './workspaces/create-invitation.ts';
import { createWorkspace, type CreateWorkspaceDeps } from './workspaces/create-workspace.ts';
import { deleteWorkspace } from './workspaces/delete-workspace.ts';
import { exportOwnedWorkspaces } from './workspaces/export-owned-workspaces.ts';
import { getInvitation } from './workspaces/get-invitation.ts';
import type { InvitationView } from './workspaces/invitations.ts';
import { listAuditEvents } from './workspaces/list-audit-events.ts';
import { listInvitations } from './workspaces/list-invitations.ts';
import { listMembers } from './workspaces/list-members.ts';
import { listWorkspaces } from './workspaces/list-workspaces.ts';
import type { MemberView } from './workspaces/members.ts';
import { recordAuditEvent } from './workspaces/record-audit-event.ts';
import { removeMember } from './workspaces/remove-member.ts';
import { renameWorkspace } from './workspaces/rename-workspace.ts';
import { setHandoffNotifications } from './workspaces/set-handoff-notifications.ts';
import { resendInvitation } from './workspaces/resend-invitation.ts';
import { revokeInvitation } from './workspaces/revoke-invitation.ts';
import { transferOwnership } from './workspaces/transfer-ownership.ts';
import { setRequireTwoFactor } from './workspaces/set-require-two-factor.ts';
import { completeTwoFactorLogin } from './two-factor/complete-two-factor-login.ts';
import { confirmTwoFactorEnrolment } from './two-factor/confirm-two-factor-enrolment.ts';
import { disableTwoFactor } from './two-factor/disable-two-factor.ts';
import { getTwoFactorStatus } from './two-factor/get-two-factor-status.ts';
import { regenerateRecoveryCodes } from './two-factor/regenerate-recovery-codes.ts';
import { startTwoFactorEnrolment } from './two-factor/start-two-factor-enrolment.ts';
import type { TwoFactorDeps } from './two-factor/two-factor-deps.ts';
import { SsoService, SsoSettingsSchema } from '@parley/proto/parley/auth/v1/sso_pb.js';
import { completeSsoSignIn, getSsoSignInWorkspace } from './sso/complete-sso-sign-in.ts';
import { samlProtocol } from './sso/sso-protocols.ts';
import type { SsoDeps } from './sso/sso-deps.ts';
import { getSsoSettings, saveSsoSettings, type SsoSettingsView } from './sso/sso-settings.ts';
import { startSsoSignIn } from './sso/start-sso-sign-in.ts';
import { parseWorkspaceId } from './core/workspace.ts';

export type AuthRpcDeps = RegisterDeps &
  LoginDeps &
  RequestPasswordResetDeps &
  ResetPasswordDeps &
  ChangeEmailDeps &
  ChangePasswordDeps &
  DeleteAccountDeps &
  CreateWorkspaceDeps &
  TwoFactorDeps &
  SsoDeps & {
    publicUrl: string;
    /**
     * Tells every holder of an open stream whose access just changed, after the change committed
     * (access-changes.ts): each call below that takes access away or changes it announces it.
     */
    announceAccessChange: AnnounceAccessChange;
  };

const toUser = (u: AccountUser): User =>
  create(UserSchema, {
    id: u.id,
    email: u.email,
    name: u.name,
    createdAt: timestampFromDate(u.createdAt),
    twoFactorEnabled: u.twoFactorEnabledAt !== null,
  });

export const toWorkspace = (w: WorkspaceView): Workspace =>
  create(WorkspaceSchema, {
    id: w.id,
    name: w.name,
    personal: w.personal,
    createdAt: timestampFromDate(w.createdAt),
    role: w.role,
    memberCount: w.memberCount,
    notifyHandoff: w.notifyHandoff,
    requireTwoFactor: w.requireTwoFactor,
  });

const toMember = (m: MemberView): Member =>
  create(MemberSchema, { userId: m.userId, email: m.email, name: m.name, role: m.role, joinedAt: timestampFromDate(m.joinedAt) });

const toInvitation = (i: InvitationView): Invitation =>
  create(InvitationSchema, {
    id: i.id,
    email: i.email,
    role: i.role,
    invitedBy: i.invitedBy,
    createdAt: timestampFromDate(i.createdAt),
    expiresAt: timestampFromDate(i.expiresAt),
  });

const toAuditEvent = (e: AuditEventView): AuditEvent => create(AuditEventSchema, { ...e, createdAt: timestampFromDate(e.createdAt) });

const actorOf = (actor: Actor | undefined): ActorInput => ({
  userId: actor?.userId ?? '',
  workspaceId: actor?.workspaceId ?? '',
  clientIp: actor?.clientIp ?? '',
});

const dateOf = (t: Timestamp | undefined) => (t ? timestampDate(t) : undefined);
const timestampOf = (d: Date | null) => (d ? timestampFromDate(d) : undefined);

const toApiKey = (k: ApiKeyView): ApiKey =>
  create(ApiKeySchema, {
    ...k,
    createdAt: timestampFromDate(k.createdAt),
    expiresAt: timestampOf(k.expiresAt),
    revokedAt: timestampOf(k.revokedAt),
    lastUsedAt: timestampOf(k.lastUsedAt),
    previousSecretExpiresAt: timestampOf(k.previousSecretExpiresAt),
  });

export function authRoutes(deps: AuthRpcDeps) {
  return (router: ConnectRouter) => {
    workspaceRoutes(deps)(router);
    apiKeyRoutes(deps)(router);
    ssoRoutes(deps)(router);
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
        if ('twoFactorChallenge' in r) return { twoFactorChallenge: r.twoFactorChallenge, user: toUser(r.user) };
        return { token: r.token, user: toUser(r.user), expiresAt: timestampFromDate(r.expiresAt) };
      },
      async completeTwoFactorLogin(req) {
        const r = await completeTwoFactorLogin(deps, { challenge: req.challenge, code: req.code, clientIp: req.clientIp });
        return { token: r.token, user: toUser(r.user), expiresAt: timestampFromDate(r.expiresAt) };
      },
      async getTwoFactorStatus(req) {
        return getTwoFactorStatus(deps.db, { userId: req.userId });
      },
      async startTwoFactorEnrolment(req) {
        return startTwoFactorEnrolment(deps, { userId: req.userId });
      },
      async confirmTwoFactorEnrolment(req) {
        return { recoveryCodes: await confirmTwoFactorEnrolment(deps, { userId: req.userId, code: req.code, clientIp: req.clientIp }) };
      },
      async disableTwoFactor(req) {
        await disableTwoFactor(deps, { userId: req.userId, password: req.password, code: req.code, clientIp: req.clientIp });
        // Their streams in a workspace that requires it end.
        await deps.announceAccessChange({ userIds: [req.userId] });
        return {};
      },
      async regenerateRecoveryCodes(req) {
        const confirmation = { userId: req.userId, password: req.password, code: req.code, clientIp: req.clientIp };
        return { recoveryCodes: await regenerateRecoveryCodes(deps, confirmation) };
      },
      async logout(req) {
        const userId = await logout(deps.db, req.token);
        if (userId) await deps.announceAccessChange({ userIds: [userId] });
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
        const userId = await resetPassword(deps, {
          token: req.token,
          password: req.password,
          passwordConfirmation: req.passwordConfirmation,
        });
        await deps.announceAccessChange({ userIds: [userId] });
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
        await deps.announceAccessChange({ userIds: [req.userId] });
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
        const revokedSessions = await revokeOtherSessions(deps.db, { userId: req.userId, keepToken: req.keepToken });
        await deps.announceAccessChange({ userIds: [req.userId] });
        return { revokedSessions };
      },
      async deleteAccount(req) {
        await deleteAccount(deps, { userId: req.userId, password: req.password, clientIp: req.clientIp });
        await deps.announceAccessChange({ userIds: [req.userId] });
        return {};
      },
    });
  };
}

export function workspaceRoutes(deps: AuthRpcDeps) {
  return (router: ConnectRouter) => {
    router.service(WorkspaceService, {
      async listWorkspaces(req) {
        return { workspaces: (await listWorkspaces(deps.db, { userId: req.userId })).map(toWorkspace) };
      },
      async createWorkspace(req) {
        return { workspace: toWorkspace(await createWorkspace(deps, { userId: req.userId, name: req.name, clientIp: req.clientIp })) };
      },
      async renameWorkspace(req) {
        return { workspace: toWorkspace(await renameWorkspace(deps.db, { actor: actorOf(req.actor), name: req.name })) };
      },
      async setHandoffNotifications(req) {
        return { workspace: toWorkspace(await setHandoffNotifications(deps.db, { actor: actorOf(req.actor), enabled: req.enabled })) };
      },
      async setRequireTwoFactor(req) {
        const workspace = await setRequireTwoFactor(deps.db, { actor: actorOf(req.actor), enabled: req.enabled });
        // Members without two-factor sign-in lose the workspace's streams they hold.
        if (req.enabled) await deps.announceAccessChange({ workspaceIds: [workspace.id] });
        return { workspace: toWorkspace(workspace) };
      },
      async deleteWorkspace(req) {
        await deleteWorkspace(deps, { actor: actorOf(req.actor), password: req.password });
        await deps.announceAccessChange({ workspaceIds: [actorOf(req.actor).workspaceId] });
        return {};
      },
      async listMembers(req) {
        return { members: (await listMembers(deps.db, { actor: actorOf(req.actor) })).map(toMember) };
      },
      async changeMemberRole(req) {
        const member = await changeMemberRole(deps.db, { actor: actorOf(req.actor), memberUserId: req.memberUserId, role: req.role });
        await deps.announceAccessChange({ userIds: [member.userId] });
        return { member: toMember(member) };
      },
      async removeMember(req) {
        await removeMember(deps.db, { actor: actorOf(req.actor), memberUserId: req.memberUserId });
        await deps.announceAccessChange({ userIds: [req.memberUserId] });
        return {};
      },
      async transferOwnership(req) {
        const actor = actorOf(req.actor);
        await transferOwnership(deps.db, { actor, memberUserId: req.memberUserId });
        await deps.announceAccessChange({ userIds: [actor.userId, req.memberUserId] });
        return {};
      },
      async createInvitation(req) {
        const invitation = await createInvitation(deps, {
          actor: actorOf(req.actor),
          email: req.email,
          role: req.role,
          seatLimit: req.seatLimit,
          plan: req.plan,
        });
        return { invitation: toInvitation(invitation) };
      },
      async listInvitations(req) {
        return { invitations: (await listInvitations(deps.db, { actor: actorOf(req.actor) })).map(toInvitation) };
      },
      async resendInvitation(req) {
        return { invitation: toInvitation(await resendInvitation(deps, { actor: actorOf(req.actor), invitationId: req.invitationId })) };
      },
      async revokeInvitation(req) {
        await revokeInvitation(deps.db, { actor: actorOf(req.actor), invitationId: req.invitationId });
        return {};
      },
      async getInvitation(req) {
        const i = await getInvitation(deps.db, { token: req.token });
        return {
          workspaceName: i.workspaceName,
          email: i.email,
          role: i.role,
          invitedBy: i.invitedBy,
          expiresAt: timestampFromDate(i.expiresAt),
          workspaceId: i.workspaceId,
        };
      },
      async acceptInvitation(req) {
        const workspace = await acceptInvitation(deps.db, {
          token: req.token,
          userId: req.userId,
          clientIp: req.clientIp,
          seatLimit: req.seatLimit,
          plan: req.plan,
        });
        return { workspace: toWorkspace(workspace) };
      },
      async recordAuditEvent(req) {
        await recordAuditEvent(deps.db, {
          actor: actorOf(req.actor),
          action: req.action,
          target: req.target,
          detailsJson: req.detailsJson,
        });
        return {};
      },
      async listAuditEvents(req) {
        const page = await listAuditEvents(deps.db, {
          actor: actorOf(req.actor),
          action: req.action,
          actorUserId: req.actorUserId,
          from: dateOf(req.from),
          to: dateOf(req.to),
          limit: req.limit,
          cursor: req.cursor,
        });
        return { events: page.events.map(toAuditEvent), nextCursor: page.nextCursor };
      },
      async exportOwnedWorkspaces(req) {
        const owned = await exportOwnedWorkspaces(deps.db, { userId: req.userId });
        return {
          workspaces: owned.map((w) => ({
            workspace: toWorkspace(w.workspace),
            members: w.members.map(toMember),
            invitations: w.invitations.map(toInvitation),
            auditEvents: w.auditEvents.map(toAuditEvent),
          })),
        };
      },
    });
  };
}

export function apiKeyRoutes(deps: AuthRpcDeps) {
  return (router: ConnectRouter) => {
    router.service(ApiKeyService, {
      async createApiKey(req) {
        const { apiKey, secret } = await createApiKey(deps.db, {
          actor: actorOf(req.actor),
          name: req.name,
          scopes: req.scopes,
          chatbotIds: req.chatbotIds,
          expiresAt: dateOf(req.expiresAt),
        });
        return { apiKey: toApiKey(apiKey), secret };
      },
      async listApiKeys(req) {
        return { apiKeys: (await listApiKeys(deps.db, { actor: actorOf(req.actor) })).map(toApiKey) };
      },
      async revokeApiKey(req) {
        const apiKey = await revokeApiKey(deps.db, { actor: actorOf(req.actor), apiKeyId: req.apiKeyId });
        await deps.announceAccessChange({ apiKeyIds: [apiKey.id] });
        return { apiKey: toApiKey(apiKey) };
      },
      async rollApiKey(req) {
        const { apiKey, secret } = await rollApiKey(deps.db, {
          actor: actorOf(req.actor),
          apiKeyId: req.apiKeyId,
          overlapSeconds: req.overlapSeconds,
        });
        // The old secret now stops at the overlap's end: its holders learn the new bound.
        await deps.announceAccessChange({ apiKeyIds: [apiKey.id] });
        return { apiKey: toApiKey(apiKey), secret };
      },
      async authenticateApiKey(req) {
        const key = await authenticateApiKey(deps.db, req.secret);
        return { ...key, expiresAt: timestampOf(key.expiresAt) };
      },
    });
  };
}

const toSsoSettings = (s: SsoSettingsView) => create(SsoSettingsSchema, s);

export function ssoRoutes(deps: AuthRpcDeps) {
  return (router: ConnectRouter) => {
    router.service(SsoService, {
      async getSsoSettings(req) {
        return { settings: toSsoSettings(await getSsoSettings(deps, { actor: actorOf(req.actor) })) };
      },
      async saveSsoSettings(req) {
        const settings = await saveSsoSettings(deps, {
          actor: actorOf(req.actor),
          protocol: req.protocol,
          oidcIssuer: req.oidcIssuer,
          oidcClientId: req.oidcClientId,
          oidcClientSecret: req.oidcClientSecret,
          samlEntryPoint: req.samlEntryPoint,
          samlIdpIssuer: req.samlIdpIssuer,
          samlIdpCertificate: req.samlIdpCertificate,
          samlIdpMetadataXml: req.samlIdpMetadataXml,
          claimedDomains: req.claimedDomains,
          defaultRole: req.defaultRole,
          autoCreate: req.autoCreate,
          requireSso: req.requireSso,
        });
        return { settings: toSsoSettings(settings) };
      },
      async startSsoSignIn(req) {
        return startSsoSignIn(deps, {
          email: req.email,
          workspaceId: req.workspaceId,
          testBy: req.testBy && actorOf(req.testBy),
          browserBinding: req.browserBinding,
        });
      },
      async completeSsoSignIn(req) {
        const r = await completeSsoSignIn(deps, {
          protocol: req.protocol,
          oidcQuery: req.oidcQuery,
          samlResponse: req.samlResponse,
          relayState: req.relayState,
          clientIp: req.clientIp,
          browserBinding: req.browserBinding,
          seatLimit: req.seatLimit,
          plan: req.plan,
        });
        return { token: r.token, email: r.email, workspaceId: r.workspaceId, test: r.test };
      },
      async getSsoSignInWorkspace(req) {
        return getSsoSignInWorkspace(deps, { protocol: req.protocol, oidcQuery: req.oidcQuery, relayState: req.relayState });
      },
      async getSamlMetadata(req) {
        return { xml: (await samlProtocol()).samlMetadata(deps, parseWorkspaceId(req.workspaceId)) };
      },
    });
  };
}
