// A member's own switch "Email me when a visitor is waiting" (docs/adr/0034-humans-in-the-loop.md):
// any member may set it; only members whose role works conversations are mailed while it is on.
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { WorkspaceView } from '../core/workspace.ts';
import { findMember, workspaceView, type ActorInput } from './access.ts';

export async function setHandoffNotifications(db: PrismaClient, req: { actor: ActorInput; enabled: boolean }): Promise<WorkspaceView> {
  const member = await findMember(db, req.actor, 'workspace:read');
  if (member.notifyHandoff !== req.enabled) {
    await db.membership.update({
      where: { workspaceId_userId: { workspaceId: member.workspace.id, userId: member.userId } },
      data: { notifyHandoff: req.enabled },
    });
  }
  return workspaceView(db, member.workspace, member.role, req.enabled);
}
