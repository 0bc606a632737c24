// Owner routes act in a workspace (docs/adr/0030-workspaces.md): the request's X-Workspace-Id header,
// the signed-in user's personal workspace without it. One call to auth authenticates the token in
// that workspace and answers the member's role; the role must hold the route's permission
// (permissions.ts). The workspace's id is the ownerId the chatbot, chat and billing services check
// every chatbot and account against, and the role rides on every call the request then makes
// (clients.ts), so each service checks it again.
// Each operation row (http/operations.ts) names its permission itself; GraphQL's fields find theirs in
// permissions.ts's table.
import type { Request } from 'express';
import { setCurrentRole } from '@parley/common/context.ts';
import { clientIp } from '@parley/common/http.ts';
import { Code, ConnectError, forbidden, notFound, unauthenticated } from '@parley/common/rpc-errors.ts';
import { can, isRole, type Permission, type Role } from '@parley/common/roles.ts';
import type { Workspace } from '@parley/proto/parley/auth/v1/workspaces_pb.js';
import type { Clients } from '../http/clients.ts';
import { bearerToken } from './bearer.ts';
import { roleLacksPermission, twoFactorRequired, WORKSPACE_NOT_FOUND } from '../http/errors.ts';
import { NO_TOKEN_MESSAGE } from './sessions.ts';
import type { AuthUser } from './users.ts';

export const WORKSPACE_HEADER = 'x-workspace-id';

/** Who asks, and where: the bearer token and the X-Workspace-Id header ('' for the personal workspace). */
export interface WorkspaceCaller {
  token: string | undefined;
  workspaceId: string;
  clientIp: string;
}

/** The signed-in member acting in a workspace. */
export interface Member {
  /** The workspace's id: what the services call the owner. */
  ownerId: string;
  user: AuthUser;
  workspace: Workspace;
  role: Role;
  clientIp: string;
}

/** A workspace id as auth writes them (a user's id or a random UUID); anything else cannot name one. */
const WORKSPACE_ID = /^[\w-]{1,64}$/;

/** The X-Workspace-Id header of a request: '' when absent or empty (the personal workspace). */
export function workspaceHeader(req: Request): string {
  return req.header(WORKSPACE_HEADER)?.trim() ?? '';
}

/**
 * The signed-in member in the caller's workspace, once their role is known to hold `permission`:
 * 401 without a valid token, 404 for a workspace they are not a member of, 403 for a role without it.
 */
export async function member(clients: Clients, caller: WorkspaceCaller, permission: Permission): Promise<Member> {
  return authorizeMember(await authenticateMember(clients, caller), permission);
}

/** The member, if their role holds the permission (403 otherwise); the request's calls then carry the role. */
export function authorizeMember(found: Member, permission: Permission): Member {
  if (!can(found.role, permission)) throw forbidden(roleLacksPermission(permission));
  setCurrentRole(found.role);
  return found;
}

/**
 * The token's user and the workspace the request acts in: the header's, else the personal one (or the
 * oldest they belong to), none for a person in no workspace. 401 without a valid token, 404 for a
 * header naming no workspace of theirs.
 */
async function signedIn(clients: Clients, caller: WorkspaceCaller): Promise<{ user: AuthUser; workspace?: Workspace }> {
  if (!caller.token) throw unauthenticated(NO_TOKEN_MESSAGE);
  if (caller.workspaceId && !WORKSPACE_ID.test(caller.workspaceId)) throw notFound(WORKSPACE_NOT_FOUND);
  let res;
  try {
    res = await clients.auth.authenticate({ token: caller.token, workspaceId: caller.workspaceId });
  } catch (err) {
    // Auth's own not-found, in the gateway's words: another workspace's id reveals nothing.
    if (err instanceof ConnectError && err.code === Code.NotFound) throw notFound(WORKSPACE_NOT_FOUND);
    throw err;
  }
  if (!res.user) throw new ConnectError('auth returned no user', Code.Internal);
  return { user: res.user, workspace: res.workspace };
}

/** The token's user in the caller's workspace, whatever their role. */
export async function authenticateMember(clients: Clients, caller: WorkspaceCaller): Promise<Member> {
  const { user, workspace } = await signedIn(clients, caller);
  // A person who belongs to no workspace (they transferred their personal one and left the rest).
  if (!workspace) throw notFound(WORKSPACE_NOT_FOUND);
  if (!isRole(workspace.role)) throw new ConnectError(`auth returned the role ${workspace.role}`, Code.Internal);
  // The one gate of a workspace that requires two-factor sign-in: every owner route and operation
  // passes here. The person's own pages (account, workspace list) do not, so they can set it up.
  if (workspace.requireTwoFactor && !user.twoFactorEnabled) throw twoFactorRequired();
  return { ownerId: workspace.id, user, workspace, role: workspace.role, clientIp: caller.clientIp };
}

/** The caller of a REST request. */
export function restCaller(req: Request): WorkspaceCaller {
  return { token: bearerToken(req), workspaceId: workspaceHeader(req), clientIp: clientIp(req) };
}

/**
 * Whose plan and credit the person's own reads show (`me`, /api/auth/current, the user a profile
 * change answers): the workspace the request acts in, so a member of a pro workspace sees its plan
 * and credit. Without the header, or with one naming no workspace of theirs (they were removed), the
 * personal workspace, or the oldest they belong to once they left it. Null for a person in no
 * workspace: their personal workspace's id may name one they gave away, whose plan and credit are no
 * longer theirs to see (users.ts shows them none). One call to auth when the workspace is theirs.
 */
export async function currentUser(clients: Clients, caller: WorkspaceCaller): Promise<{ user: AuthUser; ownerId: string | null }> {
  try {
    const { user, workspace } = await signedIn(clients, caller);
    return { user, ownerId: workspace?.id ?? null };
  } catch (err) {
    if (caller.workspaceId && err instanceof ConnectError && err.code === Code.NotFound) {
      return currentUser(clients, { ...caller, workspaceId: '' });
    }
    throw err;
  }
}

/**
 * The same for a user known already, asked with the caller's token (or, on sign-in, the new session's):
 * a request without one (sign-up, whose account has just got its personal workspace) or signed in as
 * someone else shows the user's personal workspace.
 */
export async function accountOwner(clients: Clients, caller: WorkspaceCaller, user: AuthUser): Promise<string | null> {
  if (!caller.token) return user.id;
  try {
    const current = await currentUser(clients, caller);
    return current.user.id === user.id ? current.ownerId : user.id;
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.Unauthenticated) return user.id;
    throw err;
  }
}
