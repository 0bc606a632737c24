// Creating a workspace besides the personal one: the creator is its owner, the creation is in its
// audit log, and billing hears of it (WorkspaceCreated) to open its account without the starting credit.
import type { Logger } from '@parley/common/logger.ts';
import { notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { ACCOUNT_NOT_FOUND, parseUserId } from '../core/profile-input.ts';
import { parseWorkspaceName, type WorkspaceView } from '../core/workspace.ts';
import { recordAudit } from './audit.ts';
import type { CreatedWorkspace } from './workspace-created.publisher.ts';

export interface CreateWorkspaceDeps {
  db: PrismaClient;
  logger: Logger;
  /** Announces the workspace; called after the commit. */
  publishWorkspaceCreated: (workspace: CreatedWorkspace) => Promise<void>;
}

export async function createWorkspace(
  deps: CreateWorkspaceDeps,
  req: { userId: string; name: string; clientIp: string },
): Promise<WorkspaceView> {
  const userId = parseUserId(req.userId);
  const name = parseWorkspaceName(req.name);
  const workspace = await deps.db.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: { email: true } });
    if (!user) throw notFound(ACCOUNT_NOT_FOUND);
    const created = await tx.workspace.create({
      data: { name, memberships: { create: { userId, role: 'owner' } } },
      select: { id: true, name: true, personal: true, createdAt: true, requireTwoFactor: true },
    });
    await recordAudit(tx, {
      workspaceId: created.id,
      actorUserId: userId,
      actorEmail: user.email,
      action: 'workspace.created',
      target: name,
      clientIp: req.clientIp,
    });
    return created;
  });

  // Billing also opens accounts when first asked, so a lost event costs nothing but a log line.
  try {
    await deps.publishWorkspaceCreated({ workspaceId: workspace.id, ownerUserId: userId, createdAt: workspace.createdAt });
  } catch (err) {
    deps.logger.error({ err, workspaceId: workspace.id }, 'could not publish WorkspaceCreated');
  }
  deps.logger.info({ workspaceId: workspace.id, userId }, 'workspace created');
  return { ...workspace, role: 'owner', memberCount: 1, notifyHandoff: true };
}
