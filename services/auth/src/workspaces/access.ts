// Who acts, where, and with which role: every WorkspaceService call names its actor and workspace, and
// the service checks the membership and the role itself (services/common/src/roles.ts). A workspace
// the actor is not a member of is NOT_FOUND, whether or not it exists; a role without the permission
// is PERMISSION_DENIED. Changes run under a lock on the workspace's row, so two of them (two owners
// demoting each other, two accepted invitations and the seat limit) never decide on the same state.
import { forbidden, notFound } from '@parley/common/rpc-errors.ts';
import { can, isRole, roleLacksPermission, type Permission, type Role } from '@parley/common/roles.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { parseWorkspaceId, WORKSPACE_NOT_FOUND, type WorkspaceView } from '../core/workspace.ts';
import { isUuid } from '@parley/common/ids.ts';

export interface ActorInput {
  userId: string;
  workspaceId: string;
  clientIp: string;
}

/** The acting member, with what the audit log records of them. */
export interface Member {
  userId: string;
  email: string;
  role: Role;
  clientIp: string;
  /** Their choice of mails about visitors waiting for a person. */
  notifyHandoff: boolean;
  workspace: { id: string; name: string; personal: boolean; createdAt: Date; requireTwoFactor: boolean };
}

export function requirePermission(member: Member, permission: Permission): void {
  if (!can(member.role, permission)) throw forbidden(roleLacksPermission(permission));
}

/** The actor's membership of the workspace, or NOT_FOUND; with `permission`, PERMISSION_DENIED without it. */
export async function findMember(db: Prisma.TransactionClient | PrismaClient, actor: ActorInput, permission?: Permission): Promise<Member> {
  const workspaceId = parseWorkspaceId(actor.workspaceId);
  if (!isUuid(actor.userId)) throw notFound(WORKSPACE_NOT_FOUND);
  const membership = await db.membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId: actor.userId.toLowerCase() } },
    select: {
      role: true,
      notifyHandoff: true,
      user: { select: { id: true, email: true } },
      workspace: { select: { id: true, name: true, personal: true, createdAt: true, requireTwoFactor: true } },
    },
  });
  if (!membership || !isRole(membership.role)) throw notFound(WORKSPACE_NOT_FOUND);
  const member: Member = {
    userId: membership.user.id,
    email: membership.user.email,
    role: membership.role,
    clientIp: actor.clientIp,
    notifyHandoff: membership.notifyHandoff,
    workspace: membership.workspace,
  };
  if (permission) requirePermission(member, permission);
  return member;
}

/** Locks the workspace's row until the transaction ends. */
export async function lockWorkspace(tx: Prisma.TransactionClient, workspaceId: string): Promise<void> {
  await tx.$executeRaw`SELECT 1 FROM "Workspace" WHERE "id" = ${workspaceId}::uuid FOR UPDATE`;
}

/**
 * Runs a change in one transaction, under the workspace's lock, for a member holding `permission`
 * (checked after the lock, on the membership as it then is).
 */
export async function changeAsMember<T>(
  db: PrismaClient,
  actor: ActorInput,
  permission: Permission | undefined,
  change: (tx: Prisma.TransactionClient, member: Member) => Promise<T>,
): Promise<T> {
  const workspaceId = parseWorkspaceId(actor.workspaceId);
  return db.$transaction(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    return change(tx, await findMember(tx, actor, permission));
  });
}

/** The workspace as a member with `role` (and their handoff mail choice) sees it, with its member count as of now. */
export async function workspaceView(
  db: Prisma.TransactionClient | PrismaClient,
  workspace: Member['workspace'],
  role: Role,
  notifyHandoff: boolean,
): Promise<WorkspaceView> {
  const memberCount = await db.membership.count({ where: { workspaceId: workspace.id } });
  return { ...workspace, role, memberCount, notifyHandoff };
}

/** How many owners the workspace has. */
export const ownerCount = (tx: Prisma.TransactionClient, workspaceId: string) =>
  tx.membership.count({ where: { workspaceId, role: 'owner' } });
