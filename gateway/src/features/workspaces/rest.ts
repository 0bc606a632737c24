// REST twins of the workspace operations (docs/adr/0030-workspaces.md); JSON field names as in the
// GraphQL types, roles lowercase ("owner"). Each path under /api/workspace acts in the request's
// workspace (X-Workspace-Id, the personal one without it) with the permission permissions.ts names:
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
import { Router } from 'express';
import { clientIp } from '@parley/common/http.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';
import { bearerToken } from '../../http/context.ts';
import { routeMember } from '../../access/members.ts';
import { authenticate } from '../../access/sessions.ts';
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
  type Seats,
} from './workspaces.ts';
import { booleanField, jsonObject, optionalString, stringField } from '../../http/input.ts';

export const WORKSPACE_DELETED_MESSAGE = 'Workspace deleted';
export const MEMBER_REMOVED_MESSAGE = 'Member removed';
export const WORKSPACE_LEFT_MESSAGE = 'You left the workspace';
export const OWNERSHIP_TRANSFERRED_MESSAGE = 'Ownership transferred';
export const INVITATION_REVOKED_MESSAGE = 'Invitation revoked';

/** A whole number given as a query parameter, or undefined when absent. */
function queryInteger(query: Record<string, unknown>, name: string): number | undefined {
  const raw = optionalString(query, name);
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^\d{1,4}$/.test(raw.trim())) throw invalid(`${name} must be a whole number`);
  return Number(raw.trim());
}

/** Mounted under /api/workspaces: the signed-in person's workspaces. */
export function workspaceListRoutes(clients: Clients, seats: Seats): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    res.json(await listWorkspaces(clients, seats, await authenticate(clients, bearerToken(req))));
  });
  router.post('/', async (req, res) => {
    const user = await authenticate(clients, bearerToken(req));
    const name = stringField(jsonObject(req.body), 'name');
    res.status(201).json(await createWorkspace(clients, seats, user, name, clientIp(req)));
  });
  return router;
}

/** Mounted under /api/workspace: the current workspace. */
export function workspaceRoutes(clients: Clients, seats: Seats): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    res.json(await currentWorkspace(clients, seats, await routeMember(clients, req)));
  });
  router.patch('/', async (req, res) => {
    const m = await routeMember(clients, req);
    res.json(await renameWorkspace(clients, seats, m, stringField(jsonObject(req.body), 'name')));
  });
  router.put('/require-two-factor', async (req, res) => {
    const m = await routeMember(clients, req);
    res.json(await setRequireTwoFactor(clients, seats, m, booleanField(jsonObject(req.body), 'enabled')));
  });
  router.delete('/', async (req, res) => {
    const m = await routeMember(clients, req);
    await deleteWorkspace(clients, m, stringField(jsonObject(req.body), 'password'));
    res.json({ message: WORKSPACE_DELETED_MESSAGE });
  });

  router.get('/members', async (req, res) => {
    res.json(await listMembers(clients, await routeMember(clients, req)));
  });
  router.patch('/members/:userId', async (req, res) => {
    const m = await routeMember(clients, req);
    res.json(await changeMemberRole(clients, m, req.params.userId, roleField(jsonObject(req.body).role)));
  });
  router.delete('/members/:userId', async (req, res) => {
    await removeMember(clients, await routeMember(clients, req), req.params.userId);
    res.json({ message: MEMBER_REMOVED_MESSAGE });
  });
  router.post('/leave', async (req, res) => {
    const m = await routeMember(clients, req);
    await removeMember(clients, m, m.user.id);
    res.json({ message: WORKSPACE_LEFT_MESSAGE });
  });
  router.post('/transfer', async (req, res) => {
    const m = await routeMember(clients, req);
    await transferOwnership(clients, m, stringField(jsonObject(req.body), 'userId'));
    res.json({ message: OWNERSHIP_TRANSFERRED_MESSAGE });
  });

  router.get('/invitations', async (req, res) => {
    res.json(await listInvitations(clients, await routeMember(clients, req)));
  });
  router.post('/invitations', async (req, res) => {
    const m = await routeMember(clients, req);
    const body = jsonObject(req.body);
    res.status(201).json(await inviteMember(clients, seats, m, stringField(body, 'email'), roleField(body.role)));
  });
  router.post('/invitations/:id/resend', async (req, res) => {
    res.json(await resendInvitation(clients, await routeMember(clients, req), req.params.id));
  });
  router.delete('/invitations/:id', async (req, res) => {
    await revokeInvitation(clients, await routeMember(clients, req), req.params.id);
    res.json({ message: INVITATION_REVOKED_MESSAGE });
  });

  router.get('/audit-log', async (req, res) => {
    const m = await routeMember(clients, req);
    const query = req.query as Record<string, unknown>;
    const page = await auditLog(clients, m, {
      action: optionalString(query, 'action'),
      actorUserId: optionalString(query, 'actorUserId'),
      from: optionalString(query, 'from'),
      to: optionalString(query, 'to'),
      first: queryInteger(query, 'first'),
      after: optionalString(query, 'after'),
    });
    res.json(page);
  });
  return router;
}

/** Mounted under /api/invitations: an invitation link, previewed by anyone and accepted signed in. */
export function invitationRoutes(clients: Clients, seats: Seats): Router {
  const router = Router();
  router.get('/:token', async (req, res) => {
    res.json(await invitationPreview(clients, req.params.token));
  });
  router.post('/:token/accept', async (req, res) => {
    const user = await authenticate(clients, bearerToken(req));
    res.json(await acceptInvitation(clients, seats, user, req.params.token, clientIp(req)));
  });
  return router;
}
