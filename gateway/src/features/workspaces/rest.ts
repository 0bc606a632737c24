// REST twins of the workspace operations (docs/adr/0030-workspaces.md); JSON field names as in the
// GraphQL types, roles lowercase ("owner"). Each path under /api/workspace acts in the request's
// workspace (X-Workspace-Id, the personal one without it) with the permission its row of this
// operation table names (http/operations.ts):
//   GET    /api/workspaces                          → [workspace] (the signed-in person's)
//   POST   /api/workspaces { name }                 → workspace (201; its owner is the caller)
//   GET    /api/workspace                           → the current workspace
//   PATCH  /api/workspace { name }                  → workspace
//   DELETE /api/workspace { password }              → { message }
//   GET    /api/workspace/members                   → [member]
//   PATCH  /api/workspace/members/{userId} { role } → member
//   DELETE /api/workspace/members/{userId}          → { message }
//   POST   /api/workspace/leave                     → { message }
//   POST   /api/workspace/transfer { userId }       → { message }
//   GET    /api/workspace/invitations               → [invitation]
//   POST   /api/workspace/invitations { email, role } → invitation (201)
//   POST   /api/workspace/invitations/{id}/resend   → invitation
//   DELETE /api/workspace/invitations/{id}          → { message }
//   GET    /api/workspace/audit-log?action&actorUserId&from&to&first&after → { events, nextCursor }
//   GET    /api/invitations/{token}                 → invitation preview (no sign-in)
//   POST   /api/invitations/{token}/accept          → workspace (signed in as the invited email)
import { z } from 'zod';
import { clientIp } from '@parley/common/http.ts';
import {
  acceptInvitation,
  auditLog,
  changeMemberRole,
  createWorkspace,
  currentWorkspace,
  deleteWorkspace,
  invitationPreview,
  inviteMember,
  listInvitations,
  listMembers,
  listWorkspaces,
  removeMember,
  renameWorkspace,
  setRequireTwoFactor,
  resendInvitation,
  revokeInvitation,
  roleField,
  transferOwnership,
} from './workspaces.ts';
import { operation, readWith, type Operation } from '../../http/operations.ts';
import { flag, jsonBody, optionalText, queryWholeNumber, text } from '../../http/input.ts';

export const WORKSPACE_DELETED_MESSAGE = 'Workspace deleted';
export const MEMBER_REMOVED_MESSAGE = 'Member removed';
export const WORKSPACE_LEFT_MESSAGE = 'You left the workspace';
export const OWNERSHIP_TRANSFERRED_MESSAGE = 'Ownership transferred';
export const INVITATION_REVOKED_MESSAGE = 'Invitation revoked';

const who = 'session';
const role = readWith(roleField);

export const workspaceOperations: Operation[] = [
  // The signed-in person's workspaces: no workspace is acted in, so no permission.
  operation({ method: 'GET', path: '/api/workspaces', who }, async ({ app: { clients, seats }, user }) =>
    listWorkspaces(clients, seats, user),
  ),
  operation(
    { method: 'POST', path: '/api/workspaces', who, status: 201, body: jsonBody({ name: text('name') }) },
    async ({ app: { clients, seats }, user, body, req }) => createWorkspace(clients, seats, user, body.name, clientIp(req)),
  ),

  // The current workspace.
  operation({ method: 'GET', path: '/api/workspace', who, permission: 'workspace:read' }, async ({ app: { clients, seats }, member }) =>
    currentWorkspace(clients, seats, member),
  ),
  operation(
    { method: 'PATCH', path: '/api/workspace', who, permission: 'members:manage', body: jsonBody({ name: text('name') }) },
    async ({ app: { clients, seats }, member, body }) => renameWorkspace(clients, seats, member, body.name),
  ),
  operation(
    {
      method: 'PUT',
      path: '/api/workspace/require-two-factor',
      who,
      permission: 'members:manage',
      body: jsonBody({ enabled: flag('enabled') }),
    },
    async ({ app: { clients, seats }, member, body }) => setRequireTwoFactor(clients, seats, member, body.enabled),
  ),
  operation(
    { method: 'DELETE', path: '/api/workspace', who, permission: 'workspace:delete', body: jsonBody({ password: text('password') }) },
    async ({ app: { clients }, member, body }) => {
      await deleteWorkspace(clients, member, body.password);
      return { message: WORKSPACE_DELETED_MESSAGE };
    },
  ),

  operation({ method: 'GET', path: '/api/workspace/members', who, permission: 'workspace:read' }, async ({ app: { clients }, member }) =>
    listMembers(clients, member),
  ),
  operation(
    { method: 'PATCH', path: '/api/workspace/members/:userId', who, permission: 'members:manage', body: jsonBody({ role }) },
    async ({ app: { clients }, member, params, body }) => changeMemberRole(clients, member, params.userId, body.role),
  ),
  operation(
    { method: 'DELETE', path: '/api/workspace/members/:userId', who, permission: 'members:manage' },
    async ({ app: { clients }, member, params }) => {
      await removeMember(clients, member, params.userId);
      return { message: MEMBER_REMOVED_MESSAGE };
    },
  ),
  operation({ method: 'POST', path: '/api/workspace/leave', who, permission: 'workspace:read' }, async ({ app: { clients }, member }) => {
    await removeMember(clients, member, member.user.id);
    return { message: WORKSPACE_LEFT_MESSAGE };
  }),
  operation(
    { method: 'POST', path: '/api/workspace/transfer', who, permission: 'ownership:transfer', body: jsonBody({ userId: text('userId') }) },
    async ({ app: { clients }, member, body }) => {
      await transferOwnership(clients, member, body.userId);
      return { message: OWNERSHIP_TRANSFERRED_MESSAGE };
    },
  ),

  operation(
    { method: 'GET', path: '/api/workspace/invitations', who, permission: 'members:manage' },
    async ({ app: { clients }, member }) => listInvitations(clients, member),
  ),
  operation(
    {
      method: 'POST',
      path: '/api/workspace/invitations',
      who,
      permission: 'members:manage',
      status: 201,
      body: jsonBody({ email: text('email'), role }),
    },
    async ({ app: { clients, seats }, member, body }) => inviteMember(clients, seats, member, body.email, body.role),
  ),
  operation(
    { method: 'POST', path: '/api/workspace/invitations/:id/resend', who, permission: 'members:manage' },
    async ({ app: { clients }, member, params }) => resendInvitation(clients, member, params.id),
  ),
  operation(
    { method: 'DELETE', path: '/api/workspace/invitations/:id', who, permission: 'members:manage' },
    async ({ app: { clients }, member, params }) => {
      await revokeInvitation(clients, member, params.id);
      return { message: INVITATION_REVOKED_MESSAGE };
    },
  ),

  operation(
    {
      method: 'GET',
      path: '/api/workspace/audit-log',
      who,
      permission: 'audit:read',
      query: z.object({
        action: optionalText('action'),
        actorUserId: optionalText('actorUserId'),
        from: optionalText('from'),
        to: optionalText('to'),
        first: queryWholeNumber('first'),
        after: optionalText('after'),
      }),
    },
    async ({ app: { clients }, member, query }) => auditLog(clients, member, query),
  ),

  // An invitation link: previewed by anyone, accepted signed in (as the invited email).
  operation({ method: 'GET', path: '/api/invitations/:token', who: 'public' }, async ({ app: { clients }, params }) =>
    invitationPreview(clients, params.token),
  ),
  operation({ method: 'POST', path: '/api/invitations/:token/accept', who }, async ({ app: { clients, seats }, user, params, req }) =>
    acceptInvitation(clients, seats, user, params.token, clientIp(req)),
  ),
];
