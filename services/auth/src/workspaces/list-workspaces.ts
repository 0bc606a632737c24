import { isRole } from '@parley/common/roles.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { parseUserId } from '../core/profile-input.ts';
import type { WorkspaceView } from '../core/workspace.ts';

/** The workspaces the user belongs to: their personal one first, then by name. */
export async function listWorkspaces(db: PrismaClient, req: { userId: string }): Promise<WorkspaceView[]> {
  const userId = parseUserId(req.userId);
  const memberships = await db.membership.findMany({
    where: { userId },
    select: {
      role: true,
      notifyHandoff: true,
      workspace: {
        select: {
          id: true,
          name: true,
          personal: true,
          createdAt: true,
          requireTwoFactor: true,
          _count: { select: { memberships: true } },
        },
      },
    },
  });
  return memberships
    .filter((m) => isRole(m.role))
    .map(({ role, notifyHandoff, workspace: { _count, ...workspace } }) => ({
      ...workspace,
      role: role as WorkspaceView['role'],
      memberCount: _count.memberships,
      notifyHandoff,
    }))
    .sort((a, b) => Number(b.id === userId) - Number(a.id === userId) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}
